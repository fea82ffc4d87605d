/**
 * The two HCS spellings against upstream literals, not against the registry table: every value and
 * text below is copied from outside src/.
 *   SDK — the Windows SDK's shared/winerror.h, MessageId/MessageText/#define of each code, read in
 *         marlersoft/microsoft_windows_sdk_cpp shared/winerror.h (commit 16b53593) and
 *         T-RN-R/WindowsPreviewSDKs shared/winerror.h (commit 079f449d): both copies give the same
 *         ERROR_VMCOMPUTE_* block, 0xC0370100–0xC0370113, under "Host compute service errors";
 *   x/sys — golang.org/x/sys/windows zerrors_windows.go, which lists the same twenty
 *         ERROR_VMCOMPUTE_* names and values (as syscall.Errno);
 *   field — docker/for-win#2158: a ResultError {"Error":-1070137082,"ErrorMessage":"The compute system
 *         exited unexpectedly."}, the older text of the Windows Server 2016 SDK (10.0.14393,
 *         tpn/winsdk-10 Include/10.0.14393.0/shared/winerror.h), before the texts were reworded.
 * The functions under test are hnsError(name), new HnsError(number) and vmcomputeName(name).
 */
import { describe, expect, it } from 'vitest';
import { HnsError, hnsError, vmcomputeName, type HResultName } from '../../src/core/errors.js';

/** [name, value, MessageText as winerror.h gives it]. */
type Row = readonly [HResultName, number, string];

// SDK + x/sys, in winerror.h order
const VMCOMPUTE_ROWS: readonly Row[] = [
  [
    'ERROR_VMCOMPUTE_TERMINATED_DURING_START',
    0xc0370100,
    'The virtual machine or container exited unexpectedly while starting.',
  ],
  [
    'ERROR_VMCOMPUTE_IMAGE_MISMATCH',
    0xc0370101,
    'The container operating system does not match the host operating system.',
  ],
  [
    'ERROR_VMCOMPUTE_HYPERV_NOT_INSTALLED',
    0xc0370102,
    'The virtual machine could not be started because a required feature is not installed.',
  ],
  [
    'ERROR_VMCOMPUTE_OPERATION_PENDING',
    0xc0370103,
    'The call to start an asynchronous operation succeeded and the operation is performed in the background.',
  ],
  [
    'ERROR_VMCOMPUTE_TOO_MANY_NOTIFICATIONS',
    0xc0370104,
    'The supported number of notification callbacks has been exceeded.',
  ],
  [
    'ERROR_VMCOMPUTE_INVALID_STATE',
    0xc0370105,
    'The requested virtual machine or container operation is not valid in the current state.',
  ],
  ['ERROR_VMCOMPUTE_UNEXPECTED_EXIT', 0xc0370106, 'The virtual machine or container exited unexpectedly.'],
  ['ERROR_VMCOMPUTE_TERMINATED', 0xc0370107, 'The virtual machine or container was forcefully exited.'],
  [
    'ERROR_VMCOMPUTE_CONNECT_FAILED',
    0xc0370108,
    'A connection could not be established with the container or virtual machine.',
  ],
  [
    'ERROR_VMCOMPUTE_TIMEOUT',
    0xc0370109,
    'The operation timed out because a response was not received from the virtual machine or container.',
  ],
  [
    'ERROR_VMCOMPUTE_CONNECTION_CLOSED',
    0xc037010a,
    'The connection with the virtual machine or container was closed.',
  ],
  [
    'ERROR_VMCOMPUTE_UNKNOWN_MESSAGE',
    0xc037010b,
    'An unknown internal message was received by the virtual machine or container.',
  ],
  [
    'ERROR_VMCOMPUTE_UNSUPPORTED_PROTOCOL_VERSION',
    0xc037010c,
    'The virtual machine or container does not support an available version of the communication protocol with the host.',
  ],
  ['ERROR_VMCOMPUTE_INVALID_JSON', 0xc037010d, 'The virtual machine or container JSON document is invalid.'],
  [
    'ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND',
    0xc037010e,
    'A virtual machine or container with the specified identifier does not exist.',
  ],
  [
    'ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS',
    0xc037010f,
    'A virtual machine or container with the specified identifier already exists.',
  ],
  [
    'ERROR_VMCOMPUTE_SYSTEM_ALREADY_STOPPED',
    0xc0370110,
    'The virtual machine or container with the specified identifier is not running.',
  ],
  [
    'ERROR_VMCOMPUTE_PROTOCOL_ERROR',
    0xc0370111,
    'A communication protocol error has occurred between the virtual machine or container and the host.',
  ],
  [
    'ERROR_VMCOMPUTE_INVALID_LAYER',
    0xc0370112,
    'The container image contains a layer with an unrecognized format.',
  ],
  [
    'ERROR_VMCOMPUTE_WINDOWS_INSIDER_REQUIRED',
    0xc0370113,
    'To use this container image, you must join the Windows Insider Program. Please see https://go.microsoft.com/fwlink/?linkid=850659 for more information.',
  ],
];

/**
 * Every HCS_E_ name of winerror.h that the registry holds, its value (SDK, x/sys), and its v1 twin:
 * the ERROR_VMCOMPUTE_ define of the SDK at value | 0x40000000, or undefined where the SDK has none
 * (the SDK's ERROR_VMCOMPUTE_ block ends at 0xC0370113).
 */
const HCS_TWINS: readonly (readonly [HResultName, number, HResultName | undefined])[] = [
  ['HCS_E_TERMINATED_DURING_START', 0x80370100, 'ERROR_VMCOMPUTE_TERMINATED_DURING_START'],
  ['HCS_E_IMAGE_MISMATCH', 0x80370101, 'ERROR_VMCOMPUTE_IMAGE_MISMATCH'],
  ['HCS_E_HYPERV_NOT_INSTALLED', 0x80370102, 'ERROR_VMCOMPUTE_HYPERV_NOT_INSTALLED'],
  // no HCS_E_ at 0x80370103 or 0x80370104
  ['HCS_E_INVALID_STATE', 0x80370105, 'ERROR_VMCOMPUTE_INVALID_STATE'],
  ['HCS_E_UNEXPECTED_EXIT', 0x80370106, 'ERROR_VMCOMPUTE_UNEXPECTED_EXIT'],
  ['HCS_E_TERMINATED', 0x80370107, 'ERROR_VMCOMPUTE_TERMINATED'],
  ['HCS_E_CONNECT_FAILED', 0x80370108, 'ERROR_VMCOMPUTE_CONNECT_FAILED'],
  // the one twin named differently
  ['HCS_E_CONNECTION_TIMEOUT', 0x80370109, 'ERROR_VMCOMPUTE_TIMEOUT'],
  ['HCS_E_CONNECTION_CLOSED', 0x8037010a, 'ERROR_VMCOMPUTE_CONNECTION_CLOSED'],
  ['HCS_E_UNKNOWN_MESSAGE', 0x8037010b, 'ERROR_VMCOMPUTE_UNKNOWN_MESSAGE'],
  ['HCS_E_UNSUPPORTED_PROTOCOL_VERSION', 0x8037010c, 'ERROR_VMCOMPUTE_UNSUPPORTED_PROTOCOL_VERSION'],
  ['HCS_E_INVALID_JSON', 0x8037010d, 'ERROR_VMCOMPUTE_INVALID_JSON'],
  ['HCS_E_SYSTEM_NOT_FOUND', 0x8037010e, 'ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND'],
  ['HCS_E_SYSTEM_ALREADY_EXISTS', 0x8037010f, 'ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS'],
  ['HCS_E_SYSTEM_ALREADY_STOPPED', 0x80370110, 'ERROR_VMCOMPUTE_SYSTEM_ALREADY_STOPPED'],
  ['HCS_E_PROTOCOL_ERROR', 0x80370111, 'ERROR_VMCOMPUTE_PROTOCOL_ERROR'],
  ['HCS_E_INVALID_LAYER', 0x80370112, 'ERROR_VMCOMPUTE_INVALID_LAYER'],
  ['HCS_E_WINDOWS_INSIDER_REQUIRED', 0x80370113, 'ERROR_VMCOMPUTE_WINDOWS_INSIDER_REQUIRED'],
  ['HCS_E_SERVICE_NOT_AVAILABLE', 0x80370114, undefined],
  ['HCS_E_OPERATION_NOT_STARTED', 0x80370115, undefined],
  ['HCS_E_OPERATION_ALREADY_STARTED', 0x80370116, undefined],
  // not the twin of ERROR_VMCOMPUTE_OPERATION_PENDING (0xC0370103): "still running", not "pending"
  ['HCS_E_OPERATION_PENDING', 0x80370117, undefined],
  ['HCS_E_OPERATION_TIMEOUT', 0x80370118, undefined],
  ['HCS_E_OPERATION_SYSTEM_CALLBACK_ALREADY_SET', 0x80370119, undefined],
  ['HCS_E_OPERATION_RESULT_ALLOCATION_FAILED', 0x8037011a, undefined],
  ['HCS_E_ACCESS_DENIED', 0x8037011b, undefined],
  ['HCS_E_GUEST_CRITICAL_ERROR', 0x8037011c, undefined],
  ['HCS_E_PROCESS_INFO_NOT_AVAILABLE', 0x8037011d, undefined],
  ['HCS_E_SERVICE_DISCONNECT', 0x8037011e, undefined],
  // hcsshim checks 0x8037011F even on the v1 path: there is no 0xC037011F
  ['HCS_E_PROCESS_ALREADY_STOPPED', 0x8037011f, undefined],
];

const hex = (n: number): string => '0x' + n.toString(16).toUpperCase().padStart(8, '0');

describe('ERROR_VMCOMPUTE_* (vmcompute, HCS v1) against winerror.h', () => {
  it('covers 0xC0370100–0xC0370113, once each, and nothing above it', () => {
    expect(VMCOMPUTE_ROWS.map(([, hr]) => hr)).toEqual(
      Array.from({ length: 0x14 }, (_, i) => 0xc0370100 + i),
    );
    for (let hr = 0xc0370114; hr <= 0xc037011f; hr++) expect(new HnsError(hr).code, hex(hr)).toBe(hex(hr));
  });

  it.each(VMCOMPUTE_ROWS)('%s: value, name and message', (name, hr, message) => {
    const byName = hnsError(name);
    expect(byName.hresult).toBe(hr);
    expect(byName.code).toBe(name);
    expect(byName.windowsMessage).toBe(message);
    // the number, unsigned or signed int32, resolves back to the name
    expect(new HnsError(hr).code).toBe(name);
    expect(new HnsError(hr | 0).code).toBe(name);
    expect(new HnsError(hr).windowsMessage).toBe(message);
  });

  it('field: the ResultError code of docker/for-win#2158 is ERROR_VMCOMPUTE_UNEXPECTED_EXIT', () => {
    // the ErrorMessage is the Windows Server 2016 text; the registry holds the current one
    const e = new HnsError(-1070137082);
    expect(e.code).toBe('ERROR_VMCOMPUTE_UNEXPECTED_EXIT');
    expect(e.hresult).toBe(0xc0370106);
  });
});

describe('HCS_E_* and their ERROR_VMCOMPUTE_* twins', () => {
  it('lists every registered HCS_E_ code 0x80370100–0x8037011F (none at 0x103, 0x104)', () => {
    const listed = new Map(HCS_TWINS.map(([name, hr]) => [hr, name]));
    for (let hr = 0x80370100; hr <= 0x8037011f; hr++) {
      expect(new HnsError(hr).code, hex(hr)).toBe(listed.get(hr) ?? hex(hr));
    }
  });

  it.each(HCS_TWINS)('%s (%d) → %s', (name, hr, twin) => {
    expect(hnsError(name).hresult).toBe(hr);
    expect(vmcomputeName(name)).toBe(twin);
    if (twin === undefined) {
      // no code at all at value | 0x40000000
      expect(new HnsError((hr | 0x40000000) >>> 0).code).toBe(hex((hr | 0x40000000) >>> 0));
    } else {
      expect(hnsError(twin).hresult).toBe((hr | 0x40000000) >>> 0);
      expect(hnsError(twin).hresult - hr).toBe(0x40000000);
    }
  });

  it('names outside HCS_E_ have no twin, the v1 names included', () => {
    for (const name of [
      'ERROR_VMCOMPUTE_UNEXPECTED_EXIT',
      'ERROR_VMCOMPUTE_OPERATION_PENDING',
      'HCN_E_NETWORK_NOT_FOUND',
      'E_ACCESSDENIED',
    ] as const) {
      expect(vmcomputeName(name), name).toBeUndefined();
    }
  });
});

// the two HCS_E_ texts that carry a second sentence in the SDK's winerror.h (same copies as above)
describe('HCS_E_ texts with their winerror.h second sentence', () => {
  it('HCS_E_WINDOWS_INSIDER_REQUIRED and HCS_E_ACCESS_DENIED read as winerror.h has them', () => {
    expect(hnsError('HCS_E_WINDOWS_INSIDER_REQUIRED').windowsMessage).toBe(
      'To use this container image, you must join the Windows Insider Program. Please see https://go.microsoft.com/fwlink/?linkid=850659 for more information.',
    );
    expect(hnsError('HCS_E_ACCESS_DENIED').windowsMessage).toBe(
      'Insufficient privileges. Only administrators or users that are members of the Hyper-V Administrators user group are permitted to access virtual machines or containers. To add yourself to the Hyper-V Administrators user group, please see https://aka.ms/hcsadmin for more information.',
    );
  });
});
