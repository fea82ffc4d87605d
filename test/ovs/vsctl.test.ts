/**
 * ovs-vsctl over the model's OVSDB. Expected texts are OVS's: tests/ovs-vsctl.at of
 * openvswitch/ovs (cited per test by its AT_SETUP title), the ovs-vsctl(8) man page, and outputs
 * of Debian's ovs-vsctl 3.1.0 against its own ovsdb-server/ovs-vswitchd (dummy datapath) where
 * marked "observed" (test/ovs/peer/vsctl.test.ts checks those against the daemon).
 */
import { describe, expect, it } from 'vitest';
import { Ovsdb, type Platform, Vsctl, trace, vsctl } from '../../src/ovs/index.js';

const dummy: Platform = { kind: 'dummy' };

/**
 * tests/ovs-vsctl.at runs ovs-vsctl --no-wait against ovsdb-server alone: nothing opens devices or
 * reports on them. Here every device exists, so no "Error detected while setting up" appears.
 */
const atDb = (): Ovsdb => new Ovsdb({ platform: { kind: 'windows', netdevExists: () => true } });

/** Runs each command line as its own ovs-vsctl invocation; returns the last result. */
function run(db: Ovsdb, ...lines: string[]) {
  let r = vsctl(db, lines[0]!);
  for (const l of lines.slice(1)) r = vsctl(db, l);
  return r;
}

function ok(db: Ovsdb, line: string | readonly string[]): string {
  const r = vsctl(db, line);
  expect(r.stderr, String(line)).toBe('');
  expect(r.status, String(line)).toBe(0);
  return r.stdout;
}

function err(db: Ovsdb, line: string): string {
  const r = vsctl(db, line);
  expect(r.status, line).toBe(1);
  expect(r.stdout, line).toBe('');
  return r.stderr;
}

describe('bridges and ports (tests/ovs-vsctl.at)', () => {
  it('add-br a, add-br a', () => {
    const db = atDb();
    ok(db, 'add-br a');
    expect(err(db, 'add-br a')).toBe(
      'ovs-vsctl: cannot create a bridge named a because a bridge named a already exists\n',
    );
    expect(err(db, "add-br ''")).toBe('ovs-vsctl: bridge name must not be empty string\n');
    expect(ok(db, '--may-exist add-br a')).toBe('');
    // CHECK_BRIDGES / CHECK_PORTS / CHECK_IFACES
    expect(ok(db, 'list-br')).toBe('a\n');
    expect(ok(db, 'list-ports a')).toBe('');
    expect(ok(db, 'list-ifaces a')).toBe('');
    expect(vsctl(db, 'br-exists a').status).toBe(0);
    expect(vsctl(db, 'br-exists nonexistent').status).toBe(2);
    expect(err(db, 'port-to-br a')).toBe('ovs-vsctl: no port named a\n');
    expect(err(db, 'iface-to-br a')).toBe('ovs-vsctl: no interface named a\n');
  });

  it('add-br a, del-br a, add-br a (one run, --oneline)', () => {
    const db = atDb();
    const out = ok(
      db,
      'ovs-vsctl --no-wait -vreconnect:emer --oneline -- add-br a -- del-br a -- add-br a -- set Interface a other_config:key=value -- get Interface a other_config:key'.replace(
        /^ovs-vsctl /,
        '',
      ),
    );
    expect(out).toBe('\n\n\n\nvalue\n');
    expect(ok(db, 'list-br')).toBe('a\n');
  });

  it('add-br a, add-port a a1, add-port a a1', () => {
    const db = atDb();
    ok(db, 'add-br a -- add-port a a1');
    expect(err(db, 'add-port a a1')).toBe(
      'ovs-vsctl: cannot create a port named a1 because a port named a1 already exists on bridge a\n',
    );
    expect(err(db, "add-port a ''")).toBe('ovs-vsctl: port name must not be empty string\n');
  });

  it('add-br a b, add-port a a1, add-port b b1, del-br a', () => {
    const db = atDb();
    const out = ok(
      db,
      '--oneline -- add-br a -- add-br b -- add-port a a1 -- add-port b b1 -- --if-exists del-port b b2 -- del-br a',
    );
    expect(out).toBe('\n\n\n\n\n\n');
    expect(ok(db, 'list-br')).toBe('b\n');
    expect(ok(db, 'list-ports b')).toBe('b1\n');
    expect(ok(db, 'port-to-br b1')).toBe('b\n');
    // del-br a took its port and interface rows with it
    expect(ok(db, '--if-exists --columns=name list interface a1')).toBe('');
  });

  it('add-br a b, add-port a a1, add-port b b1, del-port a a1', () => {
    const db = atDb();
    expect(run(db, 'add-br a', 'add-br b', 'add-port a a1 tag=9', 'get port a1 tag').stdout).toBe('9\n');
    ok(db, '--may-exist add-port b b1');
    ok(db, 'del-port a a1');
    ok(db, '--may-exist add-port b b1');
    expect(err(db, 'del-port a')).toBe(
      'ovs-vsctl: cannot delete port a because it is the local port for bridge a (deleting this port requires deleting the entire bridge)\n',
    );
    ok(db, '--if-exists del-port a');
    expect(err(db, '--may-exist add-port a b1')).toBe(
      'ovs-vsctl: "--may-exist add-port a b1" but b1 is actually attached to bridge b\n',
    );
    expect(ok(db, 'list-ports a')).toBe('');
    expect(ok(db, 'list-ports b')).toBe('b1\n');
  });

  it('del-port names its bridge (utilities/ovs-vsctl.c cmd_del_port)', () => {
    const db = atDb();
    ok(db, 'add-br a -- add-br b -- add-port b b1');
    expect(err(db, 'del-port a b1')).toBe('ovs-vsctl: bridge a does not have a port b1\n');
    expect(err(db, 'del-port nope')).toBe('ovs-vsctl: no port named nope\n');
    expect(err(db, 'del-br nope')).toBe('ovs-vsctl: no bridge named nope\n');
    expect(err(db, 'add-port nob p')).toBe('ovs-vsctl: no bridge named nob\n');
    expect(ok(db, '--if-exists del-br nope')).toBe('');
  });
});

describe('database commands (tests/ovs-vsctl.at)', () => {
  it('positive checks: --columns, maps with quoted keys and values, remove, clear', () => {
    const db = atDb();
    ok(db, 'add-br br0');
    expect(ok(db, '--columns=fail_mode,name,datapath_type list bridge')).toBe(
      'fail_mode           : []\nname                : br0\ndatapath_type       : ""\n',
    );
    expect(ok(db, '--columns=fail_mode,name,datapath_type find bridge')).toBe(
      'fail_mode           : []\nname                : br0\ndatapath_type       : ""\n',
    );
    ok(
      db,
      `set bridge br0 'other_config:datapath_id="0123456789ab"' 'other_config:hwaddr="00:11:22:33:44:55"' 'external-ids={"uuids"="9c45f225-a7cf-439d-976d-83db6271fda1"}' -- add bridge br0 external_ids '"roles"="local; remote; cloud"'`,
    );
    expect(ok(db, '--oneline -- get bridge br0 other_config external-ids')).toBe(
      '{datapath_id="0123456789ab", hwaddr="00:11:22:33:44:55"}\\n{roles="local; remote; cloud", uuids="9c45f225-a7cf-439d-976d-83db6271fda1"}\n',
    );
    expect(
      ok(db, 'get bridge br0 other_config:hwaddr -- --if-exists get bridge br0 other-config:nonexistent'),
    ).toBe('"00:11:22:33:44:55"\n\n');
    expect(
      ok(db, `remove bridge br0 other_config hwaddr 'datapath_id=""' -- get bridge br0 other_config`),
    ).toBe('{datapath_id="0123456789ab"}\n');
    expect(
      ok(db, `remove bridge br0 other_config 'datapath_id="0123456789ab"' -- get bridge br0 other_config`),
    ).toBe('{}\n');
    expect(ok(db, 'clear bridge br0 external-ids -- get bridge br0 external_ids')).toBe('{}\n');
    expect(ok(db, '--if-exists get bridge x datapath_id')).toBe('');
    expect(ok(db, '--if-exists list bridge x')).toBe('');
  });

  it('negative checks: errors, and nothing changes', () => {
    const db = atDb();
    ok(db, 'add-br br0 -- add-br br1');
    const before = ok(db, 'list bridge');
    const cases: Array<[string, string]> = [
      ['--may-exist', 'missing command name (use --help for help)'],
      ['--may-exist --', 'missing command name (use --help for help)'],
      ['-- --may-exist', 'missing command name (use --help for help)'],
      ['list interx x', 'unknown table "interx"'],
      ['list bridge x', 'no row "x" in table Bridge'],
      ['get bridge x datapath_id', 'no row "x" in table Bridge'],
      ['get bridge br0 x', 'Bridge does not contain a column whose name matches "x"'],
      ['get bridge br0 :y=z', ':y=z: missing column name'],
      ['get bridge br0 datapath_id:y=z', 'datapath_id:y=z: trailing garbage "=z" in argument'],
      [
        "set bridge br0 'datapath_id:y>=z'",
        'datapath_id:y>=z: argument does not end in "=" followed by a value.',
      ],
      [
        'find bridge datapath_id:y,z',
        'datapath_id:y,z: argument does not end in "=", "!=", "<", ">", "<=", ">=", "{=}", "{!=}", "{<}", "{>}", "{<=}", "{>=}", "{in}", or "{not-in}" followed by a value.',
      ],
      ['get bridge br0 datapath_id::', 'datapath_id::: trailing garbage ":" in argument'],
      ['get bridge br0 datapath_id:x', 'cannot specify key to get for non-map column datapath_id'],
      ['get bridge br0 external_ids:x', 'no key "x" in Bridge record "br0" column external_ids'],
      // Port.trunks has Bridge.flood_vlans' type (integers 0…4095, up to 4096 of them)
      ['set port br0 trunks=-1', 'constraint violation: -1 is not in the valid range 0 to 4095 (inclusive)'],
      [
        'set port br0 trunks=4096',
        'constraint violation: 4096 is not in the valid range 0 to 4095 (inclusive)',
      ],
      ['set port br0 name:x=y', 'cannot modify read-only column name in table Port'],
      // ovs-vsctl.at adds two values to an empty datapath_id; vswitchd (modelled) fills that
      // column, so the same check is made on fail_mode, the same optional-string type
      [
        'add bridge br1 fail_mode secure standalone',
        '"add" operation would put 2 values in column fail_mode of table Bridge but the maximum number is 1',
      ],
      ['add in br1 name x', 'cannot modify read-only column name in table Interface'],
      ['set port br0 name=br2', 'cannot modify read-only column name in table Port'],
      ['remove bridge br0 name br1', 'cannot modify read-only column name in table Bridge'],
      ['remove port br1 trunks true', '"true" is not a valid integer or range'],
      ['clear bridge br1 name', 'cannot modify read-only column name in table Bridge'],
      [
        'set bridge br0 fail_mode=xyz',
        'constraint violation: xyz is not one of the allowed values ([secure, standalone])',
      ],
      ['foo', "unknown command 'foo'; use --help for help"],
      ['add-br', "'add-br' command requires at least 1 arguments"],
      // observed (Debian's ovs-vsctl 3.1.0)
      ['set interface br0 ofport_request=abc', '"abc" is not a valid integer or range'],
      [
        'set interface br0 ofport_request=70000',
        'constraint violation: 70000 is not in the valid range 1 to 65279 (inclusive)',
      ],
      ['set port br0 tag=5000', 'constraint violation: 5000 is not in the valid range 0 to 4095 (inclusive)'],
    ];
    for (const [line, text] of cases) expect(err(db, line), line).toBe(`ovs-vsctl: ${text}\n`);
    expect(ok(db, 'list bridge')).toBe(before);
  });

  it('naming in db commands: by UUID, and a name that looks like a UUID', () => {
    const db = atDb();
    ok(db, 'add-br br0');
    const uuid = ok(db, 'get port br0 _uuid').trim();
    expect(ok(db, `get port ${uuid} name`)).toBe('br0\n');
    ok(db, 'add-br 0fcd11a1-2ba8-4b38-a358-4bccf2bf3057');
    expect(ok(db, 'get interface 0fcd11a1-2ba8-4b38-a358-4bccf2bf3057 type')).toBe('internal\n');
  });

  it('get bridge br0 d: more than one column matches', () => {
    const db = atDb();
    ok(db, 'add-br br0');
    // tests/ovs-vsctl.at lists datapath_version too: a column the model does not hold
    expect(err(db, 'get bridge br0 d')).toBe(
      'ovs-vsctl: Bridge contains more than one column whose name matches "d": datapath_id, datapath_type\n',
    );
  });

  describe('conditions (tests/ovs-vsctl.at "database commands -- conditions", on Port.trunks)', () => {
    const db = atDb();
    ok(
      db,
      [
        // RUN_OVS_VSCTL_TOGETHER runs with --no-wait
        '--no-wait -- add-br br',
        'add-port br br0',
        `add-port br br1 -- set port br1 trunks=0 other-config:x='""'`,
        'add-port br br2 -- set port br2 trunks=1 other-config:x=y',
        'add-port br br3 -- set port br3 trunks=0,1 other-config:x=z',
        'add-port br br4 -- set port br4 trunks=2',
        'add-port br br5 -- set port br5 trunks=0,2',
        'add-port br br6 -- set port br6 trunks=1,2',
        'add-port br br7 -- set port br7 trunks=0,1,2',
      ].join(' -- '),
    );
    const find = (cond: string): string =>
      ok(db, ['--columns=name', 'find', 'port', cond, 'name!=br'])
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/^name +: /, ''))
        .sort()
        .join(' ');
    const vectors: Array<[string, string]> = [
      ['trunks=0', 'br1'],
      ['trunks=0,2', 'br5'],
      ['trunks=3', ''],
      ['trunks!=0', 'br0 br2 br3 br4 br5 br6 br7'],
      ['trunks<2', 'br0 br1 br2'],
      ['trunks<0,2', 'br0 br1 br2 br3 br4'],
      ['trunks>1', 'br3 br4 br5 br6 br7'],
      ['trunks>=0,1', 'br3 br5 br6 br7'],
      ['trunks{=}0,1,2', 'br7'],
      ['trunks{<}[]', ''],
      ['trunks{<=}[]', 'br0'],
      ['trunks{not-in}[]', 'br0 br1 br2 br3 br4 br5 br6 br7'],
      ['trunks{not-in}0', 'br0 br2 br4 br6'],
      ['trunks{<}1,2', 'br0 br2 br4'],
      ['trunks{in}1,2', 'br0 br2 br4 br6'],
      ['trunks{>}0', 'br3 br5 br7'],
      ['trunks{>=}1,2', 'br6 br7'],
      ['other-config:x=""', 'br1'],
      ['other-config:x!=""', 'br2 br3'],
      ['other-config:x<y', 'br1'],
      ['other-config:x>=y', 'br2 br3'],
      ['other-config:x{=}[]', 'br0 br4 br5 br6 br7'],
      ['other-config:x{!=}y', 'br0 br1 br3 br4 br5 br6 br7'],
      ['other-config:x{<=}x,y,z', 'br0 br2 br3 br4 br5 br6 br7'],
      ['other-config:x{<}x', 'br0 br4 br5 br6 br7'],
      ['other-config:x{>=}""', 'br1'],
      ['other-config:x{>}[]', 'br1 br2 br3'],
      ['other-config:x{>}y', ''],
      ['other-config:x{not-in}x,y,z', 'br0 br1 br4 br5 br6 br7'],
    ];
    for (const [cond, want] of vectors) it(cond, () => expect(find(cond)).toBe(want));
  });

  it('a failing command in a chain changes nothing', () => {
    const db = atDb();
    ok(db, 'add-br br0');
    const before = ok(db, 'show');
    expect(
      err(db, 'add-br br1 -- add-port br1 p1 -- set interface p1 external_ids:k=v -- add-port nob q'),
    ).toBe('ovs-vsctl: no bridge named nob\n');
    expect(ok(db, 'show')).toBe(before);
    expect(ok(db, 'list-br')).toBe('br0\n');
    expect(db.bridge('br1')).toBeUndefined();
  });

  it('value syntax: bare and quoted strings, maps (observed)', () => {
    const db = new Ovsdb({ platform: dummy });
    ok(db, 'add-br br0 -- add-port br0 p1 -- set interface p1 type=dummy');
    ok(db, `set interface p1 external_ids='{a=b,"c d"=e}'`);
    ok(db, `set interface p1 external_ids:x=1 'external_ids:y=a b'`);
    expect(ok(db, 'get interface p1 external_ids')).toBe('{a=b, "c d"=e, x="1", y="a b"}\n');
    ok(db, 'remove interface p1 external_ids x=2');
    expect(ok(db, 'get interface p1 external_ids:x')).toBe('"1"\n');
    ok(db, 'remove interface p1 external_ids x=1');
    expect(ok(db, 'get interface p1 external_ids')).toBe('{a=b, "c d"=e, y="a b"}\n');
  });
});

describe('ovs-vswitchd: ofports, errors and the engine bridge', () => {
  it('LOCAL 65534 for the bridge port; ofport_request honoured; else round-robin from 1 (observed)', () => {
    const db = new Ovsdb({ platform: dummy });
    ok(db, 'add-br br0 -- set bridge br0 datapath-type=dummy');
    ok(db, 'add-port br0 p1 -- set interface p1 type=dummy ofport_request=5');
    ok(db, 'add-port br0 p2 -- set interface p2 type=internal');
    expect(ok(db, 'get interface br0 ofport -- get interface p1 ofport -- get interface p2 ofport')).toBe(
      '65534\n5\n1\n',
    );
    // ofproto does not hand a freed number straight back (alloc_ofp_port)
    ok(db, 'del-port p2');
    ok(db, 'add-port br0 p9 -- set interface p9 type=dummy');
    ok(db, 'add-port br0 p2 -- set interface p2 type=dummy');
    expect(ok(db, 'get interface p9 ofport -- get interface p2 ofport')).toBe('2\n3\n');
    // a new ofport_request moves the port when the number is free, and is ignored when not
    ok(db, 'set interface p9 ofport_request=7');
    expect(ok(db, 'get interface p9 ofport')).toBe('7\n');
    ok(db, 'set interface p9 ofport_request=5');
    expect(ok(db, 'get interface p9 ofport ofport_request')).toBe('7\n5\n');
    const br = db.bridge('br0')!;
    expect([...br.ports.keys()].sort((a, b) => a - b)).toEqual([3, 5, 7, 65534]);
  });

  it('an interface that cannot be opened: ofport -1, error, and ovs-vsctl reports it (observed, Linux)', () => {
    const db = new Ovsdb({ platform: { kind: 'linux' } });
    ok(db, 'add-br br0');
    const r = vsctl(db, 'add-port br0 p3');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      "ovs-vsctl: Error detected while setting up 'p3': could not open network device p3 (No such device).  See ovs-vswitchd log for details.\n",
    );
    expect(ok(db, 'get interface p3 ofport error')).toBe(
      '-1\n"could not open network device p3 (No such device)"\n',
    );
    expect(ok(db, 'list-ports br0')).toBe('p3\n');
    expect(db.bridge('br0')!.portByName('p3')).toBeUndefined();
  });

  it('add-port -- reserved names: refused with ofport -1 and no error (tests/ovs-vsctl.at)', () => {
    const db = new Ovsdb({ platform: dummy });
    ok(db, 'add-br br0 -- set bridge br0 datapath-type=dummy');
    for (const name of ['ovs-netdev', 'ovs-dummy', 'genev_sys', 'gre_sys', 'vxlan_sys']) {
      const r = vsctl(db, ['add-port', 'br0', name]);
      // upstream's ovs-vsctl now exits 65 here; Debian's 3.1.0 (observed) exits 0
      expect(r.status, name).toBe(0);
      expect(r.stderr, name).toBe(
        `ovs-vsctl: Error detected while setting up '${name}'.  See ovs-vswitchd log for details.\n`,
      );
      expect(ok(db, `get interface ${name} ofport error`)).toBe('-1\n[]\n');
      expect(db.bridge('br0')!.portByName(name)).toBeUndefined();
      ok(db, `del-port br0 ${name}`);
    }
  });

  it('tunnels need remote_ip, patch ports a peer; a missing patch peer is reported as the port is added (observed)', () => {
    const db = new Ovsdb({ platform: { kind: 'linux' } });
    ok(db, 'add-br br-int');
    expect(vsctl(db, 'add-port br-int tun0 -- set interface tun0 type=geneve').stderr).toBe(
      "ovs-vsctl: Error detected while setting up 'tun0': tun0: geneve type requires valid 'remote_ip' argument.  See ovs-vswitchd log for details.\n",
    );
    ok(
      db,
      'add-port br-int antrea-tun0 -- set interface antrea-tun0 type=geneve options:remote_ip=flow options:key=flow ofport_request=32768',
    );
    expect(ok(db, 'get interface antrea-tun0 ofport error options')).toBe(
      '32768\n[]\n{key=flow, remote_ip=flow}\n',
    );
    ok(db, 'set interface tun0 options:remote_ip=192.168.1.5');
    expect(ok(db, 'get interface tun0 ofport error')).toBe('1\n[]\n');
    expect(vsctl(db, 'add-port br-int pa -- set interface pa type=patch').stderr).toBe(
      "ovs-vsctl: Error detected while setting up 'pa': pa: patch type requires valid 'peer' argument.  See ovs-vswitchd log for details.\n",
    );
    ok(db, 'add-port br-int pb -- set interface pb type=patch options:peer=pc');
    expect(ok(db, 'get interface pb ofport error')).toBe(
      `2\n"No usable peer 'pc' exists in 'system' datapath."\n`,
    );
    expect(db.bridge('br-int')!.portByName('antrea-tun0')).toBe(32768);
  });

  it('Windows: internal ports report mac_in_use 0; a missing Hyper-V port gets -1 without error; a removed one keeps its ofport', () => {
    const present = new Set<string>(['Ethernet0']);
    const db = new Ovsdb({ platform: { kind: 'windows', netdevExists: (n) => present.has(n) } });
    const v = new Vsctl(db);
    v.addBridge('br-int');
    v.addPort('br-int', 'antrea-gw0', {
      type: 'internal',
      ofportRequest: 32769,
      externalIds: { 'antrea-type': 'gateway' },
    });
    v.addPort('br-int', 'Ethernet0', { ofportRequest: 32770, externalIds: { 'antrea-type': 'uplink' } });
    expect(v.get('interface', 'antrea-gw0', 'mac_in_use')).toBe('"00:00:00:00:00:00"');
    expect(v.get('interface', 'br-int', 'mac_in_use')).toBe('"00:00:00:00:00:00"');
    expect(v.ofport('antrea-gw0')).toBe(32769);
    expect(v.ofport('Ethernet0')).toBe(32770);
    // a pod port added before its vNIC exists (type "", as Antrea does)
    v.addPort('br-int', 'web-7975-274540', { externalIds: { 'antrea-type': 'container' } });
    expect(v.ofport('web-7975-274540')).toBe(-1);
    expect(v.get('interface', 'web-7975-274540', 'error')).toBe('[]');
    present.add('web-7975-274540');
    v.set('interface', 'web-7975-274540', 'type=internal');
    expect(v.ofport('web-7975-274540')).toBe(1);
    present.delete('Ethernet0');
    db.netdevsChanged();
    expect(v.ofport('Ethernet0')).toBe(32770);
    expect(db.bridge('br-int')!.portByName('Ethernet0')).toBe(32770);
  });

  it('the engine follows: add-port gives a port, del-port removes it and outputs to it go nowhere', () => {
    const db = new Ovsdb({ platform: dummy });
    ok(db, 'add-br br0 -- add-port br0 p1 -- set interface p1 type=dummy ofport_request=1');
    ok(db, 'add-port br0 p2 -- set interface p2 type=dummy ofport_request=2');
    const br = db.bridge('br0')!;
    br.addFlows('in_port=1,actions=output:2');
    expect(trace(br, 'in_port=1,tcp').datapathActions).not.toBe('drop');
    ok(db, 'del-port p2');
    expect(db.bridge('br0')).toBe(br);
    expect(br.portByName('p2')).toBeUndefined();
    expect(trace(br, 'in_port=1,tcp').datapathActions).toBe('drop');
    ok(db, 'del-br br0');
    expect(db.bridge('br0')).toBeUndefined();
  });

  it('UUIDs and datapath ids are deterministic by seed; other_config:datapath-id is honoured', () => {
    const a = new Ovsdb({ seed: 7 });
    const b = new Ovsdb({ seed: 7 });
    const c = new Ovsdb({ seed: 8 });
    for (const db of [a, b, c]) ok(db, '--no-wait -- add-br br0 -- add-port br0 p1');
    expect(ok(a, 'list bridge')).toBe(ok(b, 'list bridge'));
    expect(ok(a, 'list bridge')).not.toBe(ok(c, 'list bridge'));
    ok(a, 'set bridge br0 other-config:datapath-id=0000001122334455');
    expect(ok(a, 'get bridge br0 datapath_id')).toBe('"0000001122334455"\n');
  });
});
