// Errors of the typed client (reference hns-hcs.md §5.1): the Win32 reduction, hcsshim's message
// format, and the predicates against real simulator failures and hcsshim's own table.
import { describe, expect, it } from 'vitest';
import { HnsError, hnsError } from '../../../src/core/errors.js';
import {
  callTitle,
  checkErrorWithCode,
  defaultQuery,
  EndpointNotFoundError,
  ErrorCode,
  HcnClientError,
  HcnError,
  InvalidIdError,
  isElementNotFoundError,
  isNotFoundError,
  isNotImplemented,
  isPortAlreadyExistsError,
  LoadBalancerNotFoundError,
  marshalQuery,
  NamespaceNotFoundError,
  NetworkNotFoundError,
  RouteNotFoundError,
  win32FromHResult,
} from '../../../src/api/hcn/index.js';
import { natNetworkDoc, rejection, setup } from './helpers.js';

describe('win32FromHResult (the syscall wrapper + hcserror.Win32FromError)', () => {
  it('reduces failing facility-7 HRESULTs to the Win32 code and keeps the others whole', () => {
    expect(win32FromHResult(0x80070490)).toBe(0x490); // ERROR_NOT_FOUND, 1168
    expect(win32FromHResult(0x80070057)).toBe(0x57); // E_INVALIDARG → ERROR_INVALID_PARAMETER
    expect(win32FromHResult(0x8007001f)).toBe(0x1f); // ERROR_GEN_FAILURE
    expect(win32FromHResult(0xc0070005)).toBe(0x5); // severity bits beyond 0x8 still count as failing
    expect(win32FromHResult(0x803b0013)).toBe(0x803b0013);
    expect(win32FromHResult(0x80004001)).toBe(0x80004001);
    expect(win32FromHResult(0x00070490)).toBe(0x00070490); // not a failure: untouched
    expect(win32FromHResult(-2147023728)).toBe(0x490); // the signed spelling of 0x80070490
  });
});

describe('HcnError', () => {
  it('formats hcsshim\'s message: "<fn> failed in Win32: <text> (0x<code>) <ErrorRecord>"', () => {
    const e = new HcnError('hcnCreateEndpoint', 'HCN_E_ADDR_INVALID_OR_RESERVED', {
      record: {
        Success: false,
        Error: 'An address provided is invalid or reserved. ',
        ErrorCode: 2151350319,
      },
    });
    expect(e.message).toBe(
      'hcnCreateEndpoint failed in Win32: An address provided is invalid or reserved. (0x803b002f) {"Success":false,"Error":"An address provided is invalid or reserved. ","ErrorCode":2151350319}',
    );
    expect(e.name).toBe('HcnError');
    expect(e.hresult).toBe(0x803b002f);
    expect(e.code).toBe('HCN_E_ADDR_INVALID_OR_RESERVED');
    expect(e.errorCode).toBe(0x803b002f);
    expect(e.errorRecord().ErrorCode).toBe(2151350319);
    const nf = new HcnError('hcnOpenNamespace', 'ERROR_NOT_FOUND');
    expect(nf.message).toBe('hcnOpenNamespace failed in Win32: Element not found. (0x490)');
    expect(nf.errorCode).toBe(1168);
  });

  it("names a failing call after hcsshim's wrapper", () => {
    expect(callTitle('HcnCreateEndpoint')).toBe('hcnCreateEndpoint');
    expect(callTitle('HcnQuerySdnRouteProperties')).toBe('hcnQueryRouteProperties');
    expect(callTitle('HcnEnumerateSdnRoutes')).toBe('hcnEnumerateRoutes');
    expect(callTitle('HNSCall')).toBe('hnsCall');
  });
});

describe("hcsshim's error strings against real logs (research kubeproxy-errors.md B.5)", () => {
  // expected strings are quoted from the issues (completed in the same format where the excerpt
  // stops short, as marked); the failures come from the simulated service where it can produce them
  it('kubernetes/kubernetes#100962: an endpoint asking for the reserved gateway address', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const e = await rejection(net.createEndpoint({ IpConfigurations: [{ IpAddress: '192.168.100.1' }] }));
    expect(e.message).toBe(
      'hcnCreateEndpoint failed in Win32: An address provided is invalid or reserved. (0x803b002f) {"Success":false,"Error":"An address provided is invalid or reserved. ","ErrorCode":2151350319}',
    );
  });

  it('kubernetes/community#8883: a second load balancer on the same frontend', async () => {
    const { hcn } = setup('ws2025');
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'pod' });
    const lb = JSON.stringify({
      HostComputeEndpoints: [ep.ID],
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    });
    await hcn.invoke('HcnCreateLoadBalancer', null, lb);
    const e = await rejection(hcn.invoke('HcnCreateLoadBalancer', null, lb));
    // the excerpt stops after '"Success":false,'; the rest follows the record format of #100962
    const quoted =
      'hcnCreateLoadBalancer failed in Win32: The specified port already exists. (0x803b0013) {"Success":false,';
    expect(e.message.startsWith(quoted)).toBe(true);
    expect(e.message).toBe(`${quoted}"Error":"The specified port already exists. ","ErrorCode":2151350291}`);
    expect(isPortAlreadyExistsError(e)).toBe(true);
  });

  it('kubernetes-sigs/sig-windows-tools#249: E_INVALIDARG is reduced to its Win32 code (0x57) in the text', async () => {
    const { host, hcn } = setup();
    host.faults.fail((c) => c.method === 'HcnCreateNetwork', 'E_INVALIDARG', { times: 1 });
    const e = await rejection(hcn.createNetwork(natNetworkDoc()));
    expect(e.message).toBe(
      'hcnCreateNetwork failed in Win32: The parameter is incorrect. (0x57) {"Success":false,"Error":"The parameter is incorrect. ","ErrorCode":2147942487}',
    );
  });

  it('microsoft/hcsshim#1043: HCN_E_PORT_NOT_FOUND built from the code alone', () => {
    const record = new HnsError(0x803b0007).errorRecord();
    const e = new HcnError('hcnCreateLoadBalancer', 0x803b0007, { record });
    expect(e.message).toBe(
      'hcnCreateLoadBalancer failed in Win32: The switch-port was not found. (0x803b0007) {"Success":false,"Error":"The switch-port was not found. ","ErrorCode":2151350279}',
    );
  });

  it('microsoft/Windows-Containers#103: a record whose Error carries more than the system text is kept verbatim', () => {
    const record = {
      Success: false as const,
      Error: 'The reference is invalid in the JSON document. A Reference is required',
      ErrorCode: 2151350300,
    };
    const e = new HcnError('hcnCreateLoadBalancer', 0x803b001c, { record });
    expect(e.message).toBe(
      'hcnCreateLoadBalancer failed in Win32: The reference is invalid in the JSON document. (0x803b001c) {"Success":false,"Error":"The reference is invalid in the JSON document. A Reference is required","ErrorCode":2151350300}',
    );
    expect(e.code).toBe('HCN_E_INVALID_JSON_REFERENCE');
  });

  // the issue quotes the v1 text only; the record is 0x80070490 unsigned (2147943568), as in #249
  it('ERROR_NOT_FOUND prints as Win32 0x490 (Azure/azure-container-networking#283 "Element not found")', async () => {
    const { hcn } = setup();
    const e = await rejection(
      hcn.invoke('HcnQueryNamespaceProperties', '5f0b1190-63be-4e0c-b974-bd0f55675a42', ''),
    );
    // hcsshim's getNamespace opens the namespace before it queries it (hcn/hcnnamespace.go)
    expect(e.message).toBe(
      'hcnOpenNamespace failed in Win32: Element not found. (0x490) {"Success":false,"Error":"Element not found. ","ErrorCode":2147943568}',
    );
  });
});

describe('predicates against real simulator failures', () => {
  it('Open/Query of a namespace by a random GUID: ERROR_NOT_FOUND → isElementNotFoundError (TestNotFoundError)', async () => {
    const { hcn } = setup();
    const e = await rejection(
      hcn.invoke(
        'HcnQueryNamespaceProperties',
        '5f0b1190-63be-4e0c-b974-bd0f55675a42',
        marshalQuery(defaultQuery()),
      ),
    );
    expect(e).toBeInstanceOf(HcnError);
    expect(isElementNotFoundError(e)).toBe(true);
    expect(isNotFoundError(e)).toBe(true);
    expect(checkErrorWithCode(e, ErrorCode.ERROR_NOT_FOUND)).toBe(true);
    expect(checkErrorWithCode(e, 0x80070490)).toBe(true);
    expect(checkErrorWithCode(e, 'ERROR_NOT_FOUND')).toBe(true);
    expect(isPortAlreadyExistsError(e)).toBe(false);
    expect(isNotImplemented(e)).toBe(false);
    expect(e.message).toMatch(
      /^hcnOpenNamespace failed in Win32: Element not found\. \(0x490\) \{"Success":false/,
    );
  });

  it('a network-not-found HRESULT (0x803B0001) is not ERROR_NOT_FOUND: isNotFoundError is false, as in hcsshim', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.invoke('HcnDeleteNetwork', '5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect((e as HcnError).code).toBe('HCN_E_NETWORK_NOT_FOUND');
    expect(isNotFoundError(e)).toBe(false);
    expect(checkErrorWithCode(e, 'HCN_E_NETWORK_NOT_FOUND')).toBe(true);
  });

  it('bad JSON into the service: HCN_E_INVALID_JSON, no predicate matches', async () => {
    const { hcn } = setup();
    const e = (await rejection(hcn.invoke('HcnCreateNetwork', null, '{not json'))) as HcnError;
    expect(e.code).toBe('HCN_E_INVALID_JSON');
    expect(e.errorCode).toBe(0x803b001b);
    for (const p of [isNotFoundError, isElementNotFoundError, isPortAlreadyExistsError, isNotImplemented]) {
      expect(p(e)).toBe(false);
    }
  });
});

describe('isNotFoundError (hcsshim TestIsNotFoundError)', () => {
  const notFound: [string, Error][] = [
    ['NetworkNotFoundError', new NetworkNotFoundError('', '')],
    ['EndpointNotFoundError', new EndpointNotFoundError('', '')],
    ['NamespaceNotFoundError', new NamespaceNotFoundError('')],
    ['LoadBalancerNotFoundError', new LoadBalancerNotFoundError('')],
    ['RouteNotFoundError', new RouteNotFoundError('')],
    ['HcnError ERROR_NOT_FOUND', new HcnError('hcnOpenNetwork', 'ERROR_NOT_FOUND')],
    ['service HnsError ERROR_NOT_FOUND', hnsError('ERROR_NOT_FOUND')],
  ];
  const others: [string, unknown][] = [
    ['HcnError HCN_E_INVALID_JSON', new HcnError('hcnCreateNetwork', 'HCN_E_INVALID_JSON')],
    ['HcnError S_OK', new HcnError('hcnCreateNetwork', 'S_OK')],
    ['random error', new Error('random error')],
    ['a client error with another text', new HcnClientError('E_INVALIDARG', 'missing endpoints')],
    ['undefined', undefined],
    ['a string', 'Element not found.'],
  ];

  it.each(notFound)('%s → true, also when wrapped', (_name, e) => {
    expect(isNotFoundError(e)).toBe(true);
    expect(isNotFoundError(new Error('wrapping error with another error', { cause: e }))).toBe(true);
  });

  it.each(others)('%s → false, also when wrapped', (_name, e) => {
    expect(isNotFoundError(e)).toBe(false);
    expect(isNotFoundError(new Error('wrapping error with another error', { cause: e }))).toBe(false);
  });

  it('the predicates over codes look through wrapping too', () => {
    const port = new HcnError('hcnCreateEndpoint', 'HCN_E_PORT_ALREADY_EXISTS');
    expect(isPortAlreadyExistsError(new Error('outer', { cause: port }))).toBe(true);
    expect(isNotImplemented(new HcnError('hcnEnumerateNetworks', 'E_NOTIMPL'))).toBe(true);
    // the client's own errors are never HcnErrors
    expect(isElementNotFoundError(new NamespaceNotFoundError('x'))).toBe(false);
    expect(checkErrorWithCode(new Error('x'), 0x490)).toBe(false);
  });
});

describe('client-side errors', () => {
  it('not-found texts use Go %q quoting', () => {
    expect(new NetworkNotFoundError('nat', '').message).toBe('Network name "nat" not found');
    expect(new NetworkNotFoundError('', 'abc').message).toBe('Network ID "abc" not found');
    expect(new EndpointNotFoundError('a"b', '').message).toBe('Endpoint name "a\\"b" not found');
    expect(new EndpointNotFoundError('', 'x').message).toBe('Endpoint ID "x" not found');
    expect(new NamespaceNotFoundError('x').message).toBe('Namespace ID "x" not found');
    expect(new LoadBalancerNotFoundError('x').message).toBe('LoadBalancer "x" not found');
    expect(new RouteNotFoundError('x').message).toBe('SDN Route "x" not found');
    expect(new RouteNotFoundError('x').name).toBe('RouteNotFoundError');
  });

  it('invalid-ID texts, each a registered HRESULT (HCN_E_GUID_CONVERSION_FAILURE)', () => {
    const kinds = ['network', 'endpoint', 'namespace', 'load balancer', 'route'] as const;
    expect(kinds.map((k) => new InvalidIdError(k).message)).toEqual([
      'invalid network ID',
      'invalid endpoint ID',
      'invalid namespace ID',
      'invalid load balancer ID',
      'invalid route ID',
    ]);
    expect(new InvalidIdError('route').code).toBe('HCN_E_GUID_CONVERSION_FAILURE');
  });
});

describe('which hcsshim call a missing object fails in (the Open it runs first)', () => {
  const GONE = '5f0b1190-63be-4e0c-b974-bd0f55675a42';
  const ELEMENT =
    'Element not found. (0x490) {"Success":false,"Error":"Element not found. ","ErrorCode":2147943568}';

  it('RemoveNamespaceEndpoint on a deleted namespace: hcnOpenNamespace (cni-windows.md §2.8, P5)', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.removeNamespaceEndpoint(GONE, '6f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e.message).toBe(`hcnOpenNamespace failed in Win32: ${ELEMENT}`);
  });

  it('a modify of a missing network is hcnOpenNetwork, even with a document HNS would refuse', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.invoke('HcnModifyNetwork', GONE, 'not json'));
    expect(e.message).toMatch(/^hcnOpenNetwork failed in Win32: The network was not found\. \(0x803b0001\)/);
  });

  it('an endpoint create on a missing network is hcnOpenNetwork (hcn/hcnendpoint.go createEndpoint)', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.createEndpointOnNetwork(GONE, { Name: 'ep' }));
    expect(e.message).toMatch(/^hcnOpenNetwork failed in Win32: The network was not found\. \(0x803b0001\)/);
  });

  it('a delete passes the GUID with no Open: hcnDeleteNamespace', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.invoke('HcnDeleteNamespace', GONE));
    expect(e.message).toBe(`hcnDeleteNamespace failed in Win32: ${ELEMENT}`);
  });

  it('a failure after the Open keeps the call name: an endpoint missing from a live namespace', async () => {
    const { hcn, host } = setup();
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    if (!ns.ok) throw new Error(ns.message);
    const id = String((ns.result as { ID: string }).ID);
    const e = await rejection(hcn.removeNamespaceEndpoint(id, GONE));
    expect(e.message).toMatch(/^hcnModifyNamespace failed in Win32: /);
  });

  it('the mark is not data: the failure JSON (and a JSON-RPC answer) is unchanged', () => {
    const { host } = setup();
    const r = host.api.HcnModifyNamespace(GONE, '{}');
    expect(Object.keys(r)).toEqual(['ok', 'hr', 'name', 'message', 'errorRecord']);
    expect(JSON.parse(JSON.stringify(r))).toEqual({ ...r });
  });
});
