/**
 * The HRESULT registry against upstream literals, not against its own table: every value and text
 * below is copied from outside src/ (research notes kubeproxy-errors.md):
 *   B.3 — MicrosoftDocs/Virtualization-Documentation virtualization/api/hcn/Reference/HCNHResult.md
 *         (names, values, descriptions; the registered message is the description plus a full stop,
 *         docs/model.md "Messages");
 *   B.2 — golang.org/x/sys/windows zerrors_windows.go (values; it stops at 0x803B002F);
 *   B.4 — en-US FormatMessage texts of the Win32/COM/RPC codes, with the issue that quotes each;
 *   B.5 — ErrorRecords and hcsshim error strings seen in real logs.
 * The functions under test are hnsError(name), new HnsError(name | number) and errorRecord().
 */
import { describe, expect, it } from 'vitest';
import { HnsError, hnsError, type HResultName } from '../../src/core/errors.js';

/** [name, HRESULT, registered message, source]. */
type Row = readonly [HResultName, number, string, string];

const HCN = 'B.3 HCNHResult.md + B.2 x/sys';
const HCN_DOCS_ONLY = 'B.3 HCNHResult.md (x/sys stops at 0x803B002F)';

const HCN_ROWS: readonly Row[] = [
  ['HCN_E_NETWORK_NOT_FOUND', 0x803b0001, 'The network was not found.', HCN],
  ['HCN_E_ENDPOINT_NOT_FOUND', 0x803b0002, 'The endpoint was not found.', HCN],
  ['HCN_E_LAYER_NOT_FOUND', 0x803b0003, "The network's underlying layer was not found.", HCN],
  ['HCN_E_SWITCH_NOT_FOUND', 0x803b0004, 'The virtual switch was not found.', HCN],
  ['HCN_E_SUBNET_NOT_FOUND', 0x803b0005, 'The network does not have a subnet for this endpoint.', HCN],
  // B.5: docker/for-win#7155 and microsoft/SDN#269 quote "An adapter was not found." with the stop
  ['HCN_E_ADAPTER_NOT_FOUND', 0x803b0006, 'An adapter was not found.', HCN],
  // B.5: microsoft/hcsshim#1043 quotes "The switch-port was not found."
  ['HCN_E_PORT_NOT_FOUND', 0x803b0007, 'The switch-port was not found.', HCN],
  ['HCN_E_POLICY_NOT_FOUND', 0x803b0008, 'An expected policy was not found.', HCN],
  ['HCN_E_VFP_PORTSETTING_NOT_FOUND', 0x803b0009, 'A required VFP port setting was not found.', HCN],
  [
    'HCN_E_INVALID_NETWORK',
    0x803b000a,
    'The provided network configuration is invalid or missing parameters.',
    HCN,
  ],
  ['HCN_E_INVALID_NETWORK_TYPE', 0x803b000b, 'Invalid network type.', HCN],
  [
    'HCN_E_INVALID_ENDPOINT',
    0x803b000c,
    'The provided endpoint configuration is invalid or missing parameters.',
    HCN,
  ],
  // B.5: microsoft/hcsshim#1059 quotes this text with the stop
  [
    'HCN_E_INVALID_POLICY',
    0x803b000d,
    'The provided policy configuration is invalid or missing parameters.',
    HCN,
  ],
  ['HCN_E_INVALID_POLICY_TYPE', 0x803b000e, 'Invalid policy type.', HCN],
  [
    'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION',
    0x803b000f,
    'This requested operation is invalid for a remote endpoint.',
    HCN,
  ],
  ['HCN_E_NETWORK_ALREADY_EXISTS', 0x803b0010, 'A network with this name already exists.', HCN],
  // the docs give 0x803B0011 the same description as 0x803B0010 (B.3 "typos kept")
  ['HCN_E_LAYER_ALREADY_EXISTS', 0x803b0011, 'A network with this name already exists.', HCN],
  ['HCN_E_POLICY_ALREADY_EXISTS', 0x803b0012, 'Policy information already exists on this object.', HCN],
  // B.5: kubernetes/community#8883 quotes "The specified port already exists."
  ['HCN_E_PORT_ALREADY_EXISTS', 0x803b0013, 'The specified port already exists.', HCN],
  ['HCN_E_ENDPOINT_ALREADY_ATTACHED', 0x803b0014, 'This endpoint is already attached to the switch.', HCN],
  ['HCN_E_REQUEST_UNSUPPORTED', 0x803b0015, 'The specified request is unsupported.', HCN],
  ['HCN_E_MAPPING_NOT_SUPPORTED', 0x803b0016, 'Port mapping is not supported on the given network.', HCN],
  ['HCN_E_DEGRADED_OPERATION', 0x803b0017, 'There was an operation attempted on a degraded object.', HCN],
  [
    'HCN_E_SHARED_SWITCH_MODIFICATION',
    0x803b0018,
    'Cannot modify a switch shared by multiple networks.',
    HCN,
  ],
  ['HCN_E_GUID_CONVERSION_FAILURE', 0x803b0019, 'Failed to interpret a parameter as a GUID.', HCN],
  ['HCN_E_REGKEY_FAILURE', 0x803b001a, 'Failed to process registry key.', HCN],
  ['HCN_E_INVALID_JSON', 0x803b001b, 'Invalid JSON document string.', HCN],
  // B.5: microsoft/Windows-Containers#103 quotes "The reference is invalid in the JSON document."
  ['HCN_E_INVALID_JSON_REFERENCE', 0x803b001c, 'The reference is invalid in the JSON document.', HCN],
  ['HCN_E_ENDPOINT_SHARING_DISABLED', 0x803b001d, 'Endpoint sharing is disabled.', HCN],
  [
    'HCN_E_INVALID_IP',
    0x803b001e,
    'IP address is either invalid or not part of any configured subnet(s).',
    HCN,
  ],
  [
    'HCN_E_SWITCH_EXTENSION_NOT_FOUND',
    0x803b001f,
    'The specified switch extension does not exist on this switch.',
    HCN,
  ],
  ['HCN_E_MANAGER_STOPPED', 0x803b0020, 'Operation cannot be performed while service is stopping.', HCN],
  [
    'GCN_E_MODULE_NOT_FOUND',
    0x803b0021,
    'Operation cannot be performed while service module not found.',
    HCN,
  ],
  ['GCN_E_NO_REQUEST_HANDLERS', 0x803b0022, 'Request Handlers not present to handle the JSON request.', HCN],
  ['GCN_E_REQUEST_UNSUPPORTED', 0x803b0023, 'The specified request is unsupported.', HCN],
  ['GCN_E_RUNTIMEKEYS_FAILED', 0x803b0024, 'Add runtime keys to container failed.', HCN],
  [
    'GCN_E_NETADAPTER_TIMEOUT',
    0x803b0025,
    'Timeout while waiting for network adapter with the given instance id.',
    HCN,
  ],
  ['GCN_E_NETADAPTER_NOT_FOUND', 0x803b0026, 'Network adapter not found for the given instance id.', HCN],
  ['GCN_E_NETCOMPARTMENT_NOT_FOUND', 0x803b0027, 'Network compartment not found for the given id.', HCN],
  ['GCN_E_NETINTERFACE_NOT_FOUND', 0x803b0028, 'Network interface not found for the given id.', HCN],
  ['GCN_E_DEFAULTNAMESPACE_EXISTS', 0x803b0029, 'Default Namespace already exists.', HCN],
  [
    'HCN_E_ICS_DISABLED',
    0x803b002a,
    'Internet Connection Sharing service (SharedAccess) is disabled and cannot be started.',
    HCN,
  ],
  [
    'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
    0x803b002b,
    'This requested operation is invalid as endpoint is already part of a network namespace.',
    HCN,
  ],
  [
    'HCN_E_ENTITY_HAS_REFERENCES',
    0x803b002c,
    'The specified entity cannot be removed while it still has references.',
    HCN,
  ],
  ['HCN_E_INVALID_INTERNAL_PORT', 0x803b002d, 'The internal port must exist and cannot be zero.', HCN],
  ['HCN_E_NAMESPACE_ATTACH_FAILED', 0x803b002e, 'The requested operation for attach namespace failed.', HCN],
  // B.5: kubernetes/kubernetes#100962 quotes "An address provided is invalid or reserved."
  ['HCN_E_ADDR_INVALID_OR_RESERVED', 0x803b002f, 'An address provided is invalid or reserved.', HCN],
  ['HCN_E_INVALID_PREFIX', 0x803b0030, 'The prefix provided is invalid.', HCN_DOCS_ONLY],
  [
    'HCN_E_OBJECT_USED_AFTER_UNLOAD',
    0x803b0031,
    'A call was performed against an object that was torn down.',
    HCN_DOCS_ONLY,
  ],
  [
    'HCN_E_INVALID_SUBNET',
    0x803b0032,
    'The provided subnet configuration is invalid or missing parameters.',
    HCN_DOCS_ONLY,
  ],
  // the docs table reads "he provided IP subnet…" (a typo, kept verbatim in B.3); the intent,
  // parallel to 0x803B000A/000C/000D/0032, is "The provided IP subnet…", which is what HNS registers
  [
    'HCN_E_INVALID_IP_SUBNET',
    0x803b0033,
    'The provided IP subnet configuration is invalid or missing parameters.',
    HCN_DOCS_ONLY,
  ],
  [
    'HCN_E_ENDPOINT_NOT_ATTACHED',
    0x803b0034,
    'The endpoint must be attached to complete the operation.',
    HCN_DOCS_ONLY,
  ],
  [
    'HCN_E_ENDPOINT_NOT_LOCAL',
    0x803b0035,
    'The endpoint must be local to complete the operation.',
    HCN_DOCS_ONLY,
  ],
  // the one HCN name without _E_ (B.3)
  [
    'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED',
    0x803b0036,
    'Cannot apply more than one InterfaceParameters policy.',
    HCN_DOCS_ONLY,
  ],
  [
    'HCN_E_VFP_NOT_ALLOWED',
    0x803b0037,
    'A network of this type can not be created because VFP is not available.',
    HCN_DOCS_ONLY,
  ],
];

/** Win32 / COM / RPC codes: HRESULT_FROM_WIN32 of the B.2 value (0x8007xxxx), text from B.4. */
const WIN32_ROWS: readonly Row[] = [
  // B.2 ERROR_NOT_FOUND 1168 (0x490); B.4 winget logs, Azure/azure-container-networking#283
  ['ERROR_NOT_FOUND', 0x80070490, 'Element not found.', 'B.2 + B.4'],
  // B.2 E_INVALIDARG; B.4 kubernetes-sigs/sig-windows-tools#249
  ['E_INVALIDARG', 0x80070057, 'The parameter is incorrect.', 'B.2 + B.4'],
  // B.2 E_NOTIMPL; B.4 "Not implemented", no full stop (medium confidence: MSDN table, Wine log)
  ['E_NOTIMPL', 0x80004001, 'Not implemented', 'B.2 + B.4'],
  // B.2 ERROR_ALREADY_EXISTS 183 (0xb7); B.4 kubernetes/kubernetes#139519
  ['ERROR_ALREADY_EXISTS', 0x800700b7, 'Cannot create a file when that file already exists.', 'B.2 + B.4'],
  // B.2 ERROR_OBJECT_ALREADY_EXISTS 5010 (0x1392); B.4 kubernetes/kubernetes#72696, microsoft/SDN#298
  ['ERROR_OBJECT_ALREADY_EXISTS', 0x80071392, 'The object already exists.', 'B.2 + B.4'],
  // B.2 E_ACCESSDENIED; B.4 microsoft/WSL#3415
  ['E_ACCESSDENIED', 0x80070005, 'Access is denied.', 'B.2 + B.4'],
  // B.2 RPC_S_SERVER_UNAVAILABLE 1722 (0x6ba); B.4 zeronetworks/rpcfirewall#42, microsoft/WSL#5164
  ['RPC_S_SERVER_UNAVAILABLE', 0x800706ba, 'The RPC server is unavailable.', 'B.2 + B.4'],
  // B.2 RPC_S_CALL_FAILED 1726 (0x6be); B.4 microsoft/hcsshim#1472, stevencohn/OneMore#1344
  ['RPC_S_CALL_FAILED', 0x800706be, 'The remote procedure call failed.', 'B.2 + B.4'],
  // B.2 ERROR_SERVICE_NOT_ACTIVE 1062 (0x426); B.4 microsoft/WSL#7669, moby/moby#41423
  ['ERROR_SERVICE_NOT_ACTIVE', 0x80070426, 'The service has not been started.', 'B.2 + B.4'],
  // B.2 EPT_S_NOT_REGISTERED 1753 (0x6d9); B.4 microsoft/CSS-Exchange#61
  [
    'EPT_S_NOT_REGISTERED',
    0x800706d9,
    'There are no more endpoints available from the endpoint mapper.',
    'B.2 + B.4',
  ],
];

const ROWS: readonly Row[] = [...HCN_ROWS, ...WIN32_ROWS];

describe('the HRESULT registry against HCNHResult.md, x/sys and FormatMessage texts', () => {
  it('covers every HCN/GCN code 0x803B0001–0x803B0037, once each', () => {
    // a row dropped or doubled in this table would hide a missing registry entry
    expect(HCN_ROWS.map(([, hr]) => hr)).toEqual(Array.from({ length: 0x37 }, (_, i) => 0x803b0001 + i));
  });

  it.each(ROWS)('%s: value, name and message', (name, hr, message) => {
    const byName = hnsError(name);
    expect(byName).toBeInstanceOf(HnsError);
    expect(byName.hresult).toBe(hr);
    expect(byName.code).toBe(name);
    expect(byName.windowsMessage).toBe(message);
    expect(byName.message).toBe(message);
    expect(new HnsError(name).hresult).toBe(hr);
    // the number resolves back to the name (catches two names registered under one code)
    const byNumber = new HnsError(hr);
    expect(byNumber.code).toBe(name);
    expect(byNumber.windowsMessage).toBe(message);
    // the signed int32 spelling (HNS v1 ErrorCode) is the same code
    expect(new HnsError(hr | 0).code).toBe(name);
  });

  it.each(ROWS)(
    '%s ErrorRecord: {Success:false, Error:"<message> ", ErrorCode:<unsigned>}',
    (name, hr, message) => {
      const record = hnsError(name, 'a detail never reaches the record').errorRecord();
      expect(record).toEqual({ Success: false, Error: `${message} `, ErrorCode: hr });
      expect(record.ErrorCode).toBeGreaterThan(0x7fffffff);
    },
  );
});

describe('ErrorRecords observed in real logs (B.5)', () => {
  // each JSON text is the record exactly as the issue quotes it, key order included
  const observed: readonly [string, HResultName, string][] = [
    [
      'kubernetes/kubernetes#100962',
      'HCN_E_ADDR_INVALID_OR_RESERVED',
      '{"Success":false,"Error":"An address provided is invalid or reserved. ","ErrorCode":2151350319}',
    ],
    [
      'microsoft/hcsshim#1043',
      'HCN_E_PORT_NOT_FOUND',
      '{"Success":false,"Error":"The switch-port was not found. ","ErrorCode":2151350279}',
    ],
    [
      'kubernetes-sigs/sig-windows-tools#249',
      'E_INVALIDARG',
      '{"Success":false,"Error":"The parameter is incorrect. ","ErrorCode":2147942487}',
    ],
  ];

  it.each(observed)('%s: %s', (_issue, name, text) => {
    expect(JSON.stringify(hnsError(name).errorRecord())).toBe(text);
  });

  it('the detail goes into message only, never into the Windows text or the record', () => {
    const e = hnsError('HCN_E_PORT_ALREADY_EXISTS', 'PortMapping/17/56789/*');
    expect(e.message).toBe('The specified port already exists. (PortMapping/17/56789/*)');
    expect(e.windowsMessage).toBe('The specified port already exists.');
    expect(e.detail).toBe('PortMapping/17/56789/*');
    expect(e.errorRecord().Error).toBe('The specified port already exists. ');
  });
});

describe('HnsError from a number', () => {
  it('0x803B0013 resolves to HCN_E_PORT_ALREADY_EXISTS; so does its signed spelling -2143617005', () => {
    // -2143617005 is how hcsshim's internal/hns TestHNSErrorPreservation reads the v1 ErrorCode
    expect(new HnsError(0x803b0013).code).toBe('HCN_E_PORT_ALREADY_EXISTS');
    expect(new HnsError(-2143617005).code).toBe('HCN_E_PORT_ALREADY_EXISTS');
    expect(new HnsError(-2143617005).hresult).toBe(2151350291);
  });

  it('an unregistered failing code keeps its value and is labelled by its hex form', () => {
    // 0x80070020 = HRESULT_FROM_WIN32(ERROR_SHARING_VIOLATION, 32), not in the registry
    const e = new HnsError(0x80070020);
    expect(e.hresult).toBe(0x80070020);
    expect(e.code).toBe('0x80070020');
    expect(e.errorRecord().ErrorCode).toBe(2147942432);
    expect(new HnsError(0x80070020 | 0).code).toBe('0x80070020');
  });

  it('a number that is not a failing HRESULT is refused', () => {
    // bit 31 clear (success/informational codes), non-integers, beyond 32 bits: a value that is not
    // an int32/uint32 must not wrap into a registered code (2 ** 32 + 0x803B0013 >>> 0 is 0x803B0013)
    const notFailing = [1, 0x00070490, 0x7fffffff, 1.5, -(2 ** 31) - 1, Number.NaN];
    const outOfRange = [2 ** 32, 2 ** 32 + 0x803b0013, 0x803b0013 + 0.5, 0x803b0013 - 2 ** 33];
    for (const n of [...notFailing, ...outOfRange]) {
      expect(() => new HnsError(n), String(n)).toThrow(TypeError);
    }
  });
});
