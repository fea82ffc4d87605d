/**
 * The closed HRESULT registry (reference hns-hcs.md §5.2, hcs-lifecycle.md) and the one error type
 * every layer throws. A throw site names a registered code; nothing is widened to a generic error.
 *
 *   throw hnsError('HCN_E_NETWORK_NOT_FOUND');
 *   e.errorRecord() // {"Success":false,"Error":"The network was not found. ","ErrorCode":2151350273}
 */

export interface HResultInfo {
  readonly code: number; // unsigned 32-bit
  readonly message: string;
}

function r(code: number, message: string): HResultInfo {
  return { code: code >>> 0, message };
}

/**
 * Every HRESULT the simulator can return, by its Windows symbolic name. HCN messages are the
 * documented descriptions (HCNHResult.md) with the full stop the system message text carries, as
 * observed in real ErrorRecords ("An address provided is invalid or reserved. ").
 */
export const HRESULTS = {
  S_OK: r(0x00000000, 'The operation completed successfully.'),
  // HCN (computenetwork.dll), HCNHResult.md
  HCN_E_NETWORK_NOT_FOUND: r(0x803b0001, 'The network was not found.'),
  HCN_E_ENDPOINT_NOT_FOUND: r(0x803b0002, 'The endpoint was not found.'),
  HCN_E_LAYER_NOT_FOUND: r(0x803b0003, "The network's underlying layer was not found."),
  HCN_E_SWITCH_NOT_FOUND: r(0x803b0004, 'The virtual switch was not found.'),
  HCN_E_SUBNET_NOT_FOUND: r(0x803b0005, 'The network does not have a subnet for this endpoint.'),
  HCN_E_ADAPTER_NOT_FOUND: r(0x803b0006, 'An adapter was not found.'),
  HCN_E_PORT_NOT_FOUND: r(0x803b0007, 'The switch-port was not found.'),
  HCN_E_POLICY_NOT_FOUND: r(0x803b0008, 'An expected policy was not found.'),
  HCN_E_VFP_PORTSETTING_NOT_FOUND: r(0x803b0009, 'A required VFP port setting was not found.'),
  HCN_E_INVALID_NETWORK: r(
    0x803b000a,
    'The provided network configuration is invalid or missing parameters.',
  ),
  HCN_E_INVALID_NETWORK_TYPE: r(0x803b000b, 'Invalid network type.'),
  HCN_E_INVALID_ENDPOINT: r(
    0x803b000c,
    'The provided endpoint configuration is invalid or missing parameters.',
  ),
  HCN_E_INVALID_POLICY: r(0x803b000d, 'The provided policy configuration is invalid or missing parameters.'),
  HCN_E_INVALID_POLICY_TYPE: r(0x803b000e, 'Invalid policy type.'),
  HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION: r(
    0x803b000f,
    'This requested operation is invalid for a remote endpoint.',
  ),
  HCN_E_NETWORK_ALREADY_EXISTS: r(0x803b0010, 'A network with this name already exists.'),
  HCN_E_LAYER_ALREADY_EXISTS: r(0x803b0011, 'A network with this name already exists.'),
  HCN_E_POLICY_ALREADY_EXISTS: r(0x803b0012, 'Policy information already exists on this object.'),
  HCN_E_PORT_ALREADY_EXISTS: r(0x803b0013, 'The specified port already exists.'),
  HCN_E_ENDPOINT_ALREADY_ATTACHED: r(0x803b0014, 'This endpoint is already attached to the switch.'),
  HCN_E_REQUEST_UNSUPPORTED: r(0x803b0015, 'The specified request is unsupported.'),
  HCN_E_MAPPING_NOT_SUPPORTED: r(0x803b0016, 'Port mapping is not supported on the given network.'),
  HCN_E_DEGRADED_OPERATION: r(0x803b0017, 'There was an operation attempted on a degraded object.'),
  HCN_E_SHARED_SWITCH_MODIFICATION: r(0x803b0018, 'Cannot modify a switch shared by multiple networks.'),
  HCN_E_GUID_CONVERSION_FAILURE: r(0x803b0019, 'Failed to interpret a parameter as a GUID.'),
  HCN_E_REGKEY_FAILURE: r(0x803b001a, 'Failed to process registry key.'),
  HCN_E_INVALID_JSON: r(0x803b001b, 'Invalid JSON document string.'),
  HCN_E_INVALID_JSON_REFERENCE: r(0x803b001c, 'The reference is invalid in the JSON document.'),
  HCN_E_ENDPOINT_SHARING_DISABLED: r(0x803b001d, 'Endpoint sharing is disabled.'),
  HCN_E_INVALID_IP: r(0x803b001e, 'IP address is either invalid or not part of any configured subnet(s).'),
  HCN_E_SWITCH_EXTENSION_NOT_FOUND: r(
    0x803b001f,
    'The specified switch extension does not exist on this switch.',
  ),
  HCN_E_MANAGER_STOPPED: r(0x803b0020, 'Operation cannot be performed while service is stopping.'),
  GCN_E_MODULE_NOT_FOUND: r(0x803b0021, 'Operation cannot be performed while service module not found.'),
  GCN_E_NO_REQUEST_HANDLERS: r(0x803b0022, 'Request Handlers not present to handle the JSON request.'),
  GCN_E_REQUEST_UNSUPPORTED: r(0x803b0023, 'The specified request is unsupported.'),
  GCN_E_RUNTIMEKEYS_FAILED: r(0x803b0024, 'Add runtime keys to container failed.'),
  GCN_E_NETADAPTER_TIMEOUT: r(
    0x803b0025,
    'Timeout while waiting for network adapter with the given instance id.',
  ),
  GCN_E_NETADAPTER_NOT_FOUND: r(0x803b0026, 'Network adapter not found for the given instance id.'),
  GCN_E_NETCOMPARTMENT_NOT_FOUND: r(0x803b0027, 'Network compartment not found for the given id.'),
  GCN_E_NETINTERFACE_NOT_FOUND: r(0x803b0028, 'Network interface not found for the given id.'),
  GCN_E_DEFAULTNAMESPACE_EXISTS: r(0x803b0029, 'Default Namespace already exists.'),
  HCN_E_ICS_DISABLED: r(
    0x803b002a,
    'Internet Connection Sharing service (SharedAccess) is disabled and cannot be started.',
  ),
  HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS: r(
    0x803b002b,
    'This requested operation is invalid as endpoint is already part of a network namespace.',
  ),
  HCN_E_ENTITY_HAS_REFERENCES: r(
    0x803b002c,
    'The specified entity cannot be removed while it still has references.',
  ),
  HCN_E_INVALID_INTERNAL_PORT: r(0x803b002d, 'The internal port must exist and cannot be zero.'),
  HCN_E_NAMESPACE_ATTACH_FAILED: r(0x803b002e, 'The requested operation for attach namespace failed.'),
  HCN_E_ADDR_INVALID_OR_RESERVED: r(0x803b002f, 'An address provided is invalid or reserved.'),
  HCN_E_INVALID_PREFIX: r(0x803b0030, 'The prefix provided is invalid.'),
  HCN_E_OBJECT_USED_AFTER_UNLOAD: r(0x803b0031, 'A call was performed against an object that was torn down.'),
  HCN_E_INVALID_SUBNET: r(0x803b0032, 'The provided subnet configuration is invalid or missing parameters.'),
  HCN_E_INVALID_IP_SUBNET: r(
    0x803b0033,
    'The provided IP subnet configuration is invalid or missing parameters.',
  ),
  HCN_E_ENDPOINT_NOT_ATTACHED: r(0x803b0034, 'The endpoint must be attached to complete the operation.'),
  HCN_E_ENDPOINT_NOT_LOCAL: r(0x803b0035, 'The endpoint must be local to complete the operation.'),
  HCN_INTERFACEPARAMETERS_ALREADY_APPLIED: r(
    0x803b0036,
    'Cannot apply more than one InterfaceParameters policy.',
  ),
  HCN_E_VFP_NOT_ALLOWED: r(
    0x803b0037,
    'A network of this type can not be created because VFP is not available.',
  ),
  // Generic Win32 / COM codes seen from HNS
  ERROR_NOT_FOUND: r(0x80070490, 'Element not found.'),
  E_INVALIDARG: r(0x80070057, 'The parameter is incorrect.'),
  E_NOTIMPL: r(0x80004001, 'Not implemented'),
  ERROR_ALREADY_EXISTS: r(0x800700b7, 'Cannot create a file when that file already exists.'),
  ERROR_OBJECT_ALREADY_EXISTS: r(0x80071392, 'The object already exists.'),
  E_FAIL: r(0x80004005, 'Unspecified error'),
  E_UNEXPECTED: r(0x8000ffff, 'Catastrophic failure'),
  E_ABORT: r(0x80004004, 'Operation aborted'),
  E_ACCESSDENIED: r(0x80070005, 'Access is denied.'),
  E_OUTOFMEMORY: r(0x8007000e, 'Not enough memory resources are available to complete this operation.'),
  ERROR_INVALID_HANDLE: r(0x80070006, 'The handle is invalid.'),
  ERROR_INVALID_DATA: r(0x8007000d, 'The data is invalid.'),
  ERROR_NOT_SUPPORTED: r(0x80070032, 'The request is not supported.'),
  ERROR_SERVICE_NOT_ACTIVE: r(0x80070426, 'The service has not been started.'),
  ERROR_SHUTDOWN_IN_PROGRESS: r(0x8007045b, 'A system shutdown is in progress.'),
  ERROR_TIMEOUT: r(0x800705b4, 'This operation returned because the timeout period expired.'),
  // RPC: what a client of a stopped (or crashing) service sees
  RPC_S_UNKNOWN_IF: r(0x800706b5, 'The interface is unknown.'),
  RPC_S_SERVER_UNAVAILABLE: r(0x800706ba, 'The RPC server is unavailable.'),
  RPC_S_CALL_FAILED: r(0x800706be, 'The remote procedure call failed.'),
  EPT_S_NOT_REGISTERED: r(0x800706d9, 'There are no more endpoints available from the endpoint mapper.'),
  E_PENDING: r(0x8000000a, 'The data necessary to complete this operation is not yet available.'),
  ERROR_GEN_FAILURE: r(0x8007001f, 'A device attached to the system is not functioning.'),
  // HCS (vmcompute / computecore), HCSHResult.md. v2 spelling 0x8037…, v1 spelling 0xC037… (ERROR_VMCOMPUTE_*).
  HCS_E_TERMINATED_DURING_START: r(
    0x80370100,
    'The virtual machine or container exited unexpectedly while starting.',
  ),
  HCS_E_IMAGE_MISMATCH: r(
    0x80370101,
    'The container operating system does not match the host operating system.',
  ),
  HCS_E_HYPERV_NOT_INSTALLED: r(
    0x80370102,
    'The virtual machine could not be started because a required feature is not installed.',
  ),
  HCS_E_INVALID_STATE: r(
    0x80370105,
    'The requested virtual machine or container operation is not valid in the current state.',
  ),
  HCS_E_UNEXPECTED_EXIT: r(0x80370106, 'The virtual machine or container exited unexpectedly.'),
  HCS_E_TERMINATED: r(0x80370107, 'The virtual machine or container was forcefully exited.'),
  HCS_E_CONNECT_FAILED: r(
    0x80370108,
    'A connection could not be established with the container or virtual machine.',
  ),
  HCS_E_CONNECTION_TIMEOUT: r(
    0x80370109,
    'The operation timed out because a response was not received from the virtual machine or container.',
  ),
  HCS_E_CONNECTION_CLOSED: r(0x8037010a, 'The connection with the virtual machine or container was closed.'),
  HCS_E_UNKNOWN_MESSAGE: r(
    0x8037010b,
    'An unknown internal message was received by the virtual machine or container.',
  ),
  HCS_E_UNSUPPORTED_PROTOCOL_VERSION: r(
    0x8037010c,
    'The virtual machine or container does not support an available version of the communication protocol with the host.',
  ),
  HCS_E_INVALID_JSON: r(0x8037010d, 'The virtual machine or container JSON document is invalid.'),
  HCS_E_SYSTEM_NOT_FOUND: r(
    0x8037010e,
    'A virtual machine or container with the specified identifier does not exist.',
  ),
  HCS_E_SYSTEM_ALREADY_EXISTS: r(
    0x8037010f,
    'A virtual machine or container with the specified identifier already exists.',
  ),
  HCS_E_SYSTEM_ALREADY_STOPPED: r(
    0x80370110,
    'The virtual machine or container with the specified identifier is not running.',
  ),
  HCS_E_PROTOCOL_ERROR: r(
    0x80370111,
    'A communication protocol error has occurred between the virtual machine or container and the host.',
  ),
  HCS_E_INVALID_LAYER: r(0x80370112, 'The container image contains a layer with an unrecognized format.'),
  HCS_E_WINDOWS_INSIDER_REQUIRED: r(
    0x80370113,
    'To use this container image, you must join the Windows Insider Program. Please see https://go.microsoft.com/fwlink/?linkid=850659 for more information.',
  ),
  HCS_E_SERVICE_NOT_AVAILABLE: r(
    0x80370114,
    'The operation could not be started because a required feature is not installed.',
  ),
  HCS_E_OPERATION_NOT_STARTED: r(0x80370115, 'The operation has not started.'),
  HCS_E_OPERATION_ALREADY_STARTED: r(0x80370116, 'The operation is already running.'),
  HCS_E_OPERATION_PENDING: r(0x80370117, 'The operation is still running.'),
  HCS_E_OPERATION_TIMEOUT: r(0x80370118, 'The operation did not complete in time.'),
  HCS_E_OPERATION_SYSTEM_CALLBACK_ALREADY_SET: r(
    0x80370119,
    'An event callback has already been registered on this handle.',
  ),
  HCS_E_OPERATION_RESULT_ALLOCATION_FAILED: r(
    0x8037011a,
    'Not enough memory available to return the result of the operation.',
  ),
  HCS_E_ACCESS_DENIED: r(
    0x8037011b,
    'Insufficient privileges. Only administrators or users that are members of the Hyper-V Administrators user group are permitted to access virtual machines or containers. To add yourself to the Hyper-V Administrators user group, please see https://aka.ms/hcsadmin for more information.',
  ),
  HCS_E_GUEST_CRITICAL_ERROR: r(
    0x8037011c,
    'The virtual machine or container reported a critical error and was stopped or restarted.',
  ),
  HCS_E_PROCESS_INFO_NOT_AVAILABLE: r(0x8037011d, 'The process information is not available.'),
  HCS_E_SERVICE_DISCONNECT: r(0x8037011e, 'The host compute system service has disconnected unexpectedly.'),
  HCS_E_PROCESS_ALREADY_STOPPED: r(0x8037011f, 'The process has already exited.'),
  // vmcompute (HCS v1) spelling, 0xC0370100–0xC0370113: every ERROR_VMCOMPUTE_* of the Windows SDK's
  // winerror.h (as x/sys lists them), with its MessageText. ERROR_VMCOMPUTE_X == HCS_E_X | 0x40000000
  // where both exist (hcs-lifecycle.md §0); 0x103 and 0x104 exist only here, and the name can differ
  // (ERROR_VMCOMPUTE_TIMEOUT is HCS_E_CONNECTION_TIMEOUT). Windows Server 2016 (SDK 10.0.14393) printed
  // older "compute system" texts for 0x100–0x110 ("The compute system exited unexpectedly."); these are
  // the texts of the current SDKs, where each equals its HCS_E_ twin's winerror.h text.
  ERROR_VMCOMPUTE_TERMINATED_DURING_START: r(
    0xc0370100,
    'The virtual machine or container exited unexpectedly while starting.',
  ),
  ERROR_VMCOMPUTE_IMAGE_MISMATCH: r(
    0xc0370101,
    'The container operating system does not match the host operating system.',
  ),
  ERROR_VMCOMPUTE_HYPERV_NOT_INSTALLED: r(
    0xc0370102,
    'The virtual machine could not be started because a required feature is not installed.',
  ),
  ERROR_VMCOMPUTE_OPERATION_PENDING: r(
    0xc0370103,
    'The call to start an asynchronous operation succeeded and the operation is performed in the background.',
  ),
  ERROR_VMCOMPUTE_TOO_MANY_NOTIFICATIONS: r(
    0xc0370104,
    'The supported number of notification callbacks has been exceeded.',
  ),
  ERROR_VMCOMPUTE_INVALID_STATE: r(
    0xc0370105,
    'The requested virtual machine or container operation is not valid in the current state.',
  ),
  ERROR_VMCOMPUTE_UNEXPECTED_EXIT: r(0xc0370106, 'The virtual machine or container exited unexpectedly.'),
  ERROR_VMCOMPUTE_TERMINATED: r(0xc0370107, 'The virtual machine or container was forcefully exited.'),
  ERROR_VMCOMPUTE_CONNECT_FAILED: r(
    0xc0370108,
    'A connection could not be established with the container or virtual machine.',
  ),
  ERROR_VMCOMPUTE_TIMEOUT: r(
    0xc0370109,
    'The operation timed out because a response was not received from the virtual machine or container.',
  ),
  ERROR_VMCOMPUTE_CONNECTION_CLOSED: r(
    0xc037010a,
    'The connection with the virtual machine or container was closed.',
  ),
  ERROR_VMCOMPUTE_UNKNOWN_MESSAGE: r(
    0xc037010b,
    'An unknown internal message was received by the virtual machine or container.',
  ),
  ERROR_VMCOMPUTE_UNSUPPORTED_PROTOCOL_VERSION: r(
    0xc037010c,
    'The virtual machine or container does not support an available version of the communication protocol with the host.',
  ),
  ERROR_VMCOMPUTE_INVALID_JSON: r(0xc037010d, 'The virtual machine or container JSON document is invalid.'),
  ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND: r(
    0xc037010e,
    'A virtual machine or container with the specified identifier does not exist.',
  ),
  ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS: r(
    0xc037010f,
    'A virtual machine or container with the specified identifier already exists.',
  ),
  ERROR_VMCOMPUTE_SYSTEM_ALREADY_STOPPED: r(
    0xc0370110,
    'The virtual machine or container with the specified identifier is not running.',
  ),
  ERROR_VMCOMPUTE_PROTOCOL_ERROR: r(
    0xc0370111,
    'A communication protocol error has occurred between the virtual machine or container and the host.',
  ),
  ERROR_VMCOMPUTE_INVALID_LAYER: r(
    0xc0370112,
    'The container image contains a layer with an unrecognized format.',
  ),
  ERROR_VMCOMPUTE_WINDOWS_INSIDER_REQUIRED: r(
    0xc0370113,
    'To use this container image, you must join the Windows Insider Program. Please see https://go.microsoft.com/fwlink/?linkid=850659 for more information.',
  ),
} as const satisfies Record<string, HResultInfo>;

export type HResultName = keyof typeof HRESULTS;

/**
 * What names a failure: a registered HRESULT, or — only for codes a caller injects through the fault
 * layer that the registry does not hold — the code itself in hex (`0x80070020`).
 */
export type HResultLabel = HResultName | `0x${string}`;

const byCode = new Map<number, HResultName>();
for (const [name, info] of Object.entries(HRESULTS) as [HResultName, HResultInfo][]) {
  if (!byCode.has(info.code)) byCode.set(info.code, name);
}

/** The registered name of an HRESULT (first registered wins for shared codes), or undefined. */
export function hresultName(code: number): HResultName | undefined {
  return byCode.get(code >>> 0);
}

/** A registered name of the vmcompute (HCS v1) family, 0xC037…. */
export type VmcomputeName = Extract<HResultName, `ERROR_VMCOMPUTE_${string}`>;

/**
 * The v1 spelling of an HCS_E_ code: the ERROR_VMCOMPUTE_ name registered at `HCS_E_X | 0x40000000`
 * (hcs-lifecycle.md §0), found by value because the names can differ (HCS_E_CONNECTION_TIMEOUT is
 * ERROR_VMCOMPUTE_TIMEOUT). Undefined for codes that exist only as HCS_E_ (0x80370114 and up:
 * the HCS_E_OPERATION_* codes, ACCESS_DENIED, SERVICE_DISCONNECT, PROCESS_ALREADY_STOPPED…) and for
 * any name that is not HCS_E_.
 */
export function vmcomputeName(name: HResultName): VmcomputeName | undefined {
  if (!name.startsWith('HCS_E_')) return undefined;
  const twin = hresultName((HRESULTS[name].code | 0x40000000) >>> 0);
  return twin?.startsWith('ERROR_VMCOMPUTE_') ? (twin as VmcomputeName) : undefined;
}

export function isRegisteredHResult(code: number): boolean {
  return byCode.has(code >>> 0);
}

function isInt32OrUint32(code: number): boolean {
  return Number.isInteger(code) && code >= -0x80000000 && code <= 0xffffffff;
}

/** Whether `code` is a 32-bit integer HRESULT with the failure bit set. */
export function isFailureCode(code: number): boolean {
  return isInt32OrUint32(code) && code >>> 0 >= 0x80000000;
}

/** `0x803B0013` */
export function formatHResult(code: number): string {
  return '0x' + (code >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

/** The ErrorRecord JSON HNS returns beside a failing HRESULT (reference §0.1). */
export interface ErrorRecord {
  Success: false;
  Error: string;
  ErrorCode: number;
}

/**
 * A failure of the simulated Windows services. `hresult` is unsigned 32-bit, `name` the registered
 * symbolic name; `detail` says what in the input caused it (our addition: `message` is the Windows
 * text followed by the detail in parentheses; `windowsMessage` and the ErrorRecord carry only Windows text).
 */
export class HnsError extends Error {
  override readonly name = 'HnsError';
  readonly hresult: number;
  readonly code: HResultLabel;
  readonly windowsMessage: string;
  readonly detail: string | undefined;

  /**
   * `code` is a registered name, or a number: a registered code takes its name and message; any
   * other failure code (bit 31 set) is kept as given, named by its hex form, with the text Windows
   * prints for a code it has no message for.
   */
  constructor(code: HResultName | number, detail?: string) {
    let label: HResultLabel;
    let info: HResultInfo;
    if (typeof code === 'number') {
      // range first: a number beyond 32 bits must not wrap (>>> 0) into a registered code
      const known = isInt32OrUint32(code) ? hresultName(code) : undefined;
      if (known) {
        label = known;
        info = HRESULTS[known];
      } else {
        if (!isFailureCode(code)) throw new TypeError(`${String(code)} is not a failing HRESULT`);
        label = formatHResult(code) as `0x${string}`;
        info = { code: code >>> 0, message: `Unknown error ${formatHResult(code)}.` };
      }
    } else {
      label = code;
      info = HRESULTS[code];
    }
    super(detail ? `${info.message} (${detail})` : info.message);
    this.code = label;
    this.hresult = info.code;
    this.windowsMessage = info.message;
    this.detail = detail;
  }

  /** The ErrorRecord as HNS writes it: message followed by a space, code as unsigned decimal. */
  errorRecord(): ErrorRecord {
    return { Success: false, Error: `${this.windowsMessage} `, ErrorCode: this.hresult };
  }
}

/** Shorthand for `new HnsError(code, detail)`. */
export function hnsError(code: HResultName, detail?: string): HnsError {
  return new HnsError(code, detail);
}

export function isHnsError(e: unknown): e is HnsError {
  return e instanceof HnsError;
}

/** The text of anything thrown: an Error's message, else its `String()`. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
