/**
 * subnet.env as the flannel plugin reads it (flannel-io/cni-plugin @ 092e6d26 `flannel.go`
 * `loadFlannelSubnetEnv`; reference cni-windows.md §5.1): Go's scanner, ParseCIDR, ParseUint and
 * os.Open texts, the "missing" list, de-duplication, and the panic on a known key without `=`.
 */
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import { loadSubnetEnv, parseSubnetEnv, SubnetEnvError } from '../../../src/plugins/flannel/subnet-env.js';
import { GoPanic } from '../../../src/cni/gopanic.js';
import { netString } from '../../../src/cni/goip.js';

const FILE = '/run/flannel/subnet.env';

function parse(text: string) {
  return parseSubnetEnv(text, FILE);
}

function parseError(text: string): string {
  try {
    parse(text);
  } catch (e) {
    expect(e).toBeInstanceOf(SubnetEnvError);
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('parseSubnetEnv', () => {
  it('reads what flanneld writes, FLANNEL_SUBNET as its network', () => {
    const se = parse(
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n',
    );
    expect(se.networks.map(netString)).toEqual(['10.244.0.0/16']);
    expect(netString(se.subnet)).toBe('10.244.1.0/24');
    expect(se.mtu).toBe(1450);
    expect(se.ipMasq).toBe(false);
    expect(se.ipv6Networks).toEqual([]);
    expect(se.ipv6Subnet).toBeUndefined();
  });

  it('IPv6 lines: fc00::1/64 is the network fc00::/64', () => {
    const se = parse(
      'FLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1472\nFLANNEL_IPMASQ=true\n',
    );
    expect(se.ipv6Networks.map(netString)).toEqual(['fc00::/48']);
    expect(netString(se.ipv6Subnet)).toBe('fc00::/64');
    expect(se.networks).toEqual([]);
  });

  it('a comma list of networks, de-duplicated in order (same network, same mask)', () => {
    const se = parse(
      'FLANNEL_NETWORK=10.1.0.0/16,192.168.0.0/16,10.1.2.3/16,10.1.0.0/17\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_MTU=1472\nFLANNEL_IPMASQ=true\n',
    );
    // 10.1.2.3/16 masks to 10.1.0.0/16, a duplicate; /17 differs in its mask
    expect(se.networks.map(netString)).toEqual(['10.1.0.0/16', '192.168.0.0/16', '10.1.0.0/17']);
  });

  it('FLANNEL_IPMASQ is true only for exactly "true"', () => {
    const base = 'FLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_MTU=1472\n';
    expect(parse(`${base}FLANNEL_IPMASQ=true`).ipMasq).toBe(true);
    expect(parse(`${base}FLANNEL_IPMASQ=True`).ipMasq).toBe(false);
    expect(parse(`${base}FLANNEL_IPMASQ=1`).ipMasq).toBe(false);
    expect(parse(`${base}FLANNEL_IPMASQ=`).ipMasq).toBe(false);
  });

  it('CRLF line ends are dropped (bufio.ScanLines), a last line without a newline counts, later lines win', () => {
    const se = parse(
      'FLANNEL_NETWORK=10.1.0.0/16\r\nFLANNEL_SUBNET=10.1.17.1/24\r\nFLANNEL_MTU=1400\r\nFLANNEL_MTU=1472\r\nFLANNEL_IPMASQ=true',
    );
    expect(se.mtu).toBe(1472);
    expect(se.ipMasq).toBe(true);
  });

  it('the "missing" list names every absent key, in flannel order (flannel_linux_test.go "foo=bar")', () => {
    expect(parseError('foo=bar')).toBe(
      `${FILE} is missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_MTU, FLANNEL_IPMASQ`,
    );
    expect(parseError('')).toBe(
      `${FILE} is missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_MTU, FLANNEL_IPMASQ`,
    );
    expect(parseError('FLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_SUBNET=10.1.17.1/24\n')).toBe(
      `${FILE} is missing FLANNEL_MTU, FLANNEL_IPMASQ`,
    );
    expect(parseError('FLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_MTU=1\nFLANNEL_IPMASQ=false')).toBe(
      `${FILE} is missing FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET`,
    );
  });

  it('keys are case-sensitive and untrimmed; unknown lines are ignored', () => {
    expect(parseError('flannel_network=10.1.0.0/16\n FLANNEL_MTU=1\nFLANNEL_IPMASQ=true\n# comment')).toBe(
      `${FILE} is missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_MTU`,
    );
  });

  it('net.ParseCIDR errors: the bad element, empty text included', () => {
    expect(parseError('FLANNEL_NETWORK=10.1.0.0/16,nope\n')).toBe('invalid CIDR address: nope');
    expect(parseError('FLANNEL_NETWORK=\n')).toBe('invalid CIDR address: ');
    expect(parseError('FLANNEL_SUBNET=10.1.17.1\n')).toBe('invalid CIDR address: 10.1.17.1');
    expect(parseError('FLANNEL_SUBNET=10.1.17.1/33\n')).toBe('invalid CIDR address: 10.1.17.1/33');
    expect(parseError('FLANNEL_IPV6_SUBNET= fc00::1/64\n')).toBe('invalid CIDR address:  fc00::1/64');
    expect(parseError('FLANNEL_NETWORK=010.1.0.0/16\n')).toBe('invalid CIDR address: 010.1.0.0/16');
  });

  it('strconv.ParseUint errors for FLANNEL_MTU (base 10, 32 bits)', () => {
    expect(parseError('FLANNEL_MTU=abc')).toBe('strconv.ParseUint: parsing "abc": invalid syntax');
    expect(parseError('FLANNEL_MTU=')).toBe('strconv.ParseUint: parsing "": invalid syntax');
    expect(parseError('FLANNEL_MTU=-1')).toBe('strconv.ParseUint: parsing "-1": invalid syntax');
    expect(parseError('FLANNEL_MTU=+1')).toBe('strconv.ParseUint: parsing "+1": invalid syntax');
    expect(parseError('FLANNEL_MTU=1_000')).toBe('strconv.ParseUint: parsing "1_000": invalid syntax');
    expect(parseError('FLANNEL_MTU=4294967296')).toBe(
      'strconv.ParseUint: parsing "4294967296": value out of range',
    );
    // the first problem from the left decides
    expect(parseError('FLANNEL_MTU=99999999999x')).toBe(
      'strconv.ParseUint: parsing "99999999999x": value out of range',
    );
    expect(
      parse(
        'FLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_MTU=4294967295\nFLANNEL_IPMASQ=x',
      ).mtu,
    ).toBe(4294967295);
  });

  it('lines are handled in order: the first bad one decides', () => {
    expect(parseError('FLANNEL_MTU=x\nFLANNEL_NETWORK=bad\n')).toBe(
      'strconv.ParseUint: parsing "x": invalid syntax',
    );
    expect(parseError('FLANNEL_NETWORK=bad\nFLANNEL_MTU=x\n')).toBe('invalid CIDR address: bad');
  });

  it('a line of 64 KiB stops bufio.Scanner', () => {
    const long = `X=${'a'.repeat(64 * 1024)}`;
    expect(parseError(`FLANNEL_MTU=1\n${long}\n`)).toBe('bufio.Scanner: token too long');
    expect(parseError(`FLANNEL_MTU=x\n${long}\n`)).toBe('strconv.ParseUint: parsing "x": invalid syntax');
    // 65535 bytes and the newline still fit in the scanner's buffer
    expect(parseError(`${'a'.repeat(65535)}\nFLANNEL_MTU=1`)).toContain('is missing');
  });

  it('a known key without "=" indexes past SplitN\'s one part: Go panics', () => {
    expect(() => parse('FLANNEL_NETWORK\n')).toThrow(GoPanic);
    expect(() => parse('FLANNEL_MTU')).toThrow('runtime error: index out of range [1] with length 1');
    // an unknown key without "=" is just ignored
    expect(parseError('FOO\n')).toContain('is missing');
  });
});

describe('loadSubnetEnv: os.Open on Windows', () => {
  it('a missing directory is "path", a missing file in an existing directory is "file"', () => {
    const files = new FileStore();
    expect(() => loadSubnetEnv(files, FILE)).toThrow(
      'open /run/flannel/subnet.env: The system cannot find the path specified.',
    );
    files.write('/run/flannel/other', 'x');
    expect(() => loadSubnetEnv(files, FILE)).toThrow(
      'open /run/flannel/subnet.env: The system cannot find the file specified.',
    );
    expect(() => loadSubnetEnv(files, '')).toThrow('open : The system cannot find the file specified.');
  });

  it('reads through Windows path rules (drive letter, backslashes, any case)', () => {
    const files = new FileStore();
    files.write(
      '/run/flannel/subnet.env',
      'FLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_MTU=1\nFLANNEL_IPMASQ=true',
    );
    expect(netString(loadSubnetEnv(files, 'C:\\RUN\\flannel\\subnet.env').subnet)).toBe('10.1.17.0/24');
  });

  it('a directory opens but cannot be read', () => {
    const files = new FileStore();
    files.write('/run/flannel/subnet.env/x', 'x');
    expect(() => loadSubnetEnv(files, FILE)).toThrow('read /run/flannel/subnet.env: Incorrect function.');
  });
});
