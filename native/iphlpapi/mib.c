/*
 * The interface tables and conversions of netioapi.h: GetIfEntry2(Ex), GetIfTable2(Ex), GetIfEntry,
 * the ConvertInterface* functions, GetUnicastIpAddressTable/Entry, FreeMibTable — from the node's
 * view (view.c). Return codes are the ones the function's documentation lists (learn.microsoft.com,
 * netioapi.h / iphlpapi.h pages).
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* netioapi.h values mingw-w64's headers do not all have (Windows SDK 10.0.19041 netioapi.h). */
typedef ULONG hn_if_entry_level;
#define HN_MIB_IF_ENTRY_NORMAL 0
#define HN_MIB_IF_ENTRY_NORMAL_WITHOUT_STATISTICS 2
#define HN_MIB_IF_TABLE_NORMAL_WITHOUT_STATISTICS 2
#define HN_NET_IFINDEX_UNSPECIFIED 0

/* Forward to Wine's own export when this process has no simulated node. */
#define HN_WINE_OR_NODE(name, params, args)                                    \
  do {                                                                         \
    if (!hn_node_configured()) {                                               \
      DWORD(WINAPI * fn) params = (void *)hn_wine_proc(#name);                 \
      return fn ? fn args : ERROR_NOT_SUPPORTED;                               \
    }                                                                          \
  } while (0)

static void fill_if_row2(const hn_if *i, MIB_IF_ROW2 *row) {
  memset(row, 0, sizeof *row);
  row->InterfaceLuid = i->luid;
  row->InterfaceIndex = i->index;
  row->InterfaceGuid = i->guid;
  memcpy(row->Alias, i->alias, sizeof row->Alias);
  memcpy(row->Description, i->description, sizeof row->Description);
  row->PhysicalAddressLength = i->mac_len;
  memcpy(row->PhysicalAddress, i->mac, i->mac_len);
  memcpy(row->PermanentPhysicalAddress, i->mac, i->mac_len);
  row->Mtu = i->mtu;
  row->Type = i->type;
  row->TunnelType = TUNNEL_TYPE_NONE;
  row->MediaType = NdisMedium802_3;
  row->PhysicalMediumType = i->kind == HN_IF_LOOPBACK ? NdisPhysicalMediumUnspecified : NdisPhysicalMedium802_3;
  row->AccessType = i->kind == HN_IF_LOOPBACK ? NET_IF_ACCESS_LOOPBACK : NET_IF_ACCESS_BROADCAST;
  row->DirectionType = NET_IF_DIRECTION_SENDRECEIVE;
  row->InterfaceAndOperStatusFlags.HardwareInterface = i->kind == HN_IF_PHYSICAL;
  row->InterfaceAndOperStatusFlags.ConnectorPresent = i->kind == HN_IF_PHYSICAL;
  row->OperStatus = i->up ? IfOperStatusUp : IfOperStatusDown;
  row->AdminStatus = NET_IF_ADMIN_STATUS_UP;
  row->MediaConnectState = i->up ? MediaConnectStateConnected : MediaConnectStateDisconnected;
  row->ConnectionType = NET_IF_CONNECTION_DEDICATED;
  row->TransmitLinkSpeed = row->ReceiveLinkSpeed = hn_if_speed(i);
}

static DWORD if_entry2(PMIB_IF_ROW2 Row) {
  if (!Row || (Row->InterfaceLuid.Value == 0 && Row->InterfaceIndex == 0)) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_luid_or_index(&v, &Row->InterfaceLuid, Row->InterfaceIndex);
  if (i) fill_if_row2(i, Row);
  else status = ERROR_FILE_NOT_FOUND;
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_GetIfEntry2(PMIB_IF_ROW2 Row) {
  HN_WINE_OR_NODE(GetIfEntry2, (PMIB_IF_ROW2), (Row));
  return if_entry2(Row);
}

DWORD WINAPI hn_GetIfEntry2Ex(hn_if_entry_level Level, PMIB_IF_ROW2 Row) {
  HN_WINE_OR_NODE(GetIfEntry2Ex, (hn_if_entry_level, PMIB_IF_ROW2), (Level, Row));
  if (Level != HN_MIB_IF_ENTRY_NORMAL && Level != HN_MIB_IF_ENTRY_NORMAL_WITHOUT_STATISTICS)
    return ERROR_INVALID_PARAMETER;
  return if_entry2(Row);
}

static int compare_if_rows(const void *x, const void *y) {
  ULONG a = ((const MIB_IF_ROW2 *)x)->InterfaceIndex, b = ((const MIB_IF_ROW2 *)y)->InterfaceIndex;
  return a < b ? -1 : a > b;
}

static DWORD if_table2(PMIB_IF_TABLE2 *Table) {
  if (!Table) return ERROR_INVALID_PARAMETER;
  *Table = NULL;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  PMIB_IF_TABLE2 t = hn_mib_alloc(FIELD_OFFSET(MIB_IF_TABLE2, Table) + (v.n_ifs ? v.n_ifs : 1) * sizeof(MIB_IF_ROW2));
  if (!t) {
    hn_view_free(&v);
    return ERROR_NOT_ENOUGH_MEMORY;
  }
  t->NumEntries = (ULONG)v.n_ifs;
  for (size_t k = 0; k < v.n_ifs; k++) fill_if_row2(&v.ifs[k], &t->Table[k]);
  qsort(t->Table, v.n_ifs, sizeof(MIB_IF_ROW2), compare_if_rows);
  *Table = t;
  hn_view_free(&v);
  return NO_ERROR;
}

DWORD WINAPI hn_GetIfTable2(PMIB_IF_TABLE2 *Table) {
  HN_WINE_OR_NODE(GetIfTable2, (PMIB_IF_TABLE2 *), (Table));
  return if_table2(Table);
}

DWORD WINAPI hn_GetIfTable2Ex(MIB_IF_TABLE_LEVEL Level, PMIB_IF_TABLE2 *Table) {
  HN_WINE_OR_NODE(GetIfTable2Ex, (MIB_IF_TABLE_LEVEL, PMIB_IF_TABLE2 *), (Level, Table));
  if (Level != MibIfTableNormal && Level != MibIfTableRaw && (ULONG)Level != HN_MIB_IF_TABLE_NORMAL_WITHOUT_STATISTICS)
    return ERROR_INVALID_PARAMETER;
  return if_table2(Table);
}

/* The legacy MIB_IFROW (GetIfEntry): dwIndex in, the row out; ERROR_INVALID_DATA for an unknown index. */
DWORD WINAPI hn_GetIfEntry(PMIB_IFROW Row) {
  HN_WINE_OR_NODE(GetIfEntry, (PMIB_IFROW), (Row));
  if (!Row) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_index(&v, Row->dwIndex);
  if (!i) {
    hn_view_free(&v);
    return ERROR_INVALID_DATA;
  }
  DWORD index = Row->dwIndex;
  memset(Row, 0, sizeof *Row);
  _snwprintf(Row->wszName, MAX_INTERFACE_NAME_LEN - 1, L"\\DEVICE\\TCPIP_%hs", i->adapter_name);
  Row->dwIndex = index;
  Row->dwType = i->type;
  Row->dwMtu = i->mtu;
  ULONG64 speed = hn_if_speed(i);
  Row->dwSpeed = speed > 0xFFFFFFFFull ? 0xFFFFFFFF : (DWORD)speed;
  Row->dwPhysAddrLen = i->mac_len > MAXLEN_PHYSADDR ? MAXLEN_PHYSADDR : i->mac_len;
  memcpy(Row->bPhysAddr, i->mac, Row->dwPhysAddrLen);
  Row->dwAdminStatus = 1; /* MIB_IF_ADMIN_STATUS_UP */
  Row->dwOperStatus = i->up ? IF_OPER_STATUS_OPERATIONAL : IF_OPER_STATUS_NON_OPERATIONAL;
  int n = WideCharToMultiByte(CP_ACP, 0, i->description, -1, (char *)Row->bDescr, MAXLEN_IFDESCR, NULL, NULL);
  Row->dwDescrLen = n > 0 ? (DWORD)n : 0;
  hn_view_free(&v);
  return NO_ERROR;
}

/* ───────────────────────── ConvertInterface* ───────────────────────── */

DWORD WINAPI hn_ConvertInterfaceLuidToIndex(const NET_LUID *InterfaceLuid, PNET_IFINDEX InterfaceIndex) {
  HN_WINE_OR_NODE(ConvertInterfaceLuidToIndex, (const NET_LUID *, PNET_IFINDEX), (InterfaceLuid, InterfaceIndex));
  if (!InterfaceLuid || !InterfaceIndex) return ERROR_INVALID_PARAMETER;
  *InterfaceIndex = HN_NET_IFINDEX_UNSPECIFIED;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_luid(&v, InterfaceLuid);
  if (i) *InterfaceIndex = i->index;
  else status = ERROR_INVALID_PARAMETER;
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_ConvertInterfaceIndexToLuid(NET_IFINDEX InterfaceIndex, PNET_LUID InterfaceLuid) {
  HN_WINE_OR_NODE(ConvertInterfaceIndexToLuid, (NET_IFINDEX, PNET_LUID), (InterfaceIndex, InterfaceLuid));
  if (!InterfaceLuid) return ERROR_INVALID_PARAMETER;
  InterfaceLuid->Value = 0;
  if (InterfaceIndex == HN_NET_IFINDEX_UNSPECIFIED) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_index(&v, InterfaceIndex);
  if (i) *InterfaceLuid = i->luid;
  else status = ERROR_FILE_NOT_FOUND;
  hn_view_free(&v);
  return status;
}

/* Length: in characters, the terminating NUL included. */
DWORD WINAPI hn_ConvertInterfaceLuidToAlias(const NET_LUID *InterfaceLuid, PWSTR InterfaceAlias, SIZE_T Length) {
  HN_WINE_OR_NODE(ConvertInterfaceLuidToAlias, (const NET_LUID *, PWSTR, SIZE_T),
                  (InterfaceLuid, InterfaceAlias, Length));
  if (!InterfaceLuid || !InterfaceAlias || Length == 0) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_luid(&v, InterfaceLuid);
  if (!i) status = ERROR_INVALID_PARAMETER;
  else if (wcslen(i->alias) + 1 > Length) status = ERROR_NOT_ENOUGH_MEMORY;
  else wcscpy(InterfaceAlias, i->alias);
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_ConvertInterfaceAliasToLuid(const WCHAR *InterfaceAlias, PNET_LUID InterfaceLuid) {
  HN_WINE_OR_NODE(ConvertInterfaceAliasToLuid, (const WCHAR *, PNET_LUID), (InterfaceAlias, InterfaceLuid));
  if (!InterfaceAlias || !InterfaceLuid) return ERROR_INVALID_PARAMETER;
  InterfaceLuid->Value = 0;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  status = ERROR_INVALID_PARAMETER;
  for (size_t k = 0; k < v.n_ifs; k++) {
    if (_wcsicmp(v.ifs[k].alias, InterfaceAlias) == 0) {
      *InterfaceLuid = v.ifs[k].luid;
      status = NO_ERROR;
      break;
    }
  }
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_ConvertInterfaceLuidToGuid(const NET_LUID *InterfaceLuid, GUID *InterfaceGuid) {
  HN_WINE_OR_NODE(ConvertInterfaceLuidToGuid, (const NET_LUID *, GUID *), (InterfaceLuid, InterfaceGuid));
  if (!InterfaceLuid || !InterfaceGuid) return ERROR_INVALID_PARAMETER;
  memset(InterfaceGuid, 0, sizeof *InterfaceGuid);
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_luid(&v, InterfaceLuid);
  if (i) *InterfaceGuid = i->guid;
  else status = ERROR_INVALID_PARAMETER;
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_ConvertInterfaceGuidToLuid(const GUID *InterfaceGuid, PNET_LUID InterfaceLuid) {
  HN_WINE_OR_NODE(ConvertInterfaceGuidToLuid, (const GUID *, PNET_LUID), (InterfaceGuid, InterfaceLuid));
  if (!InterfaceGuid || !InterfaceLuid) return ERROR_INVALID_PARAMETER;
  InterfaceLuid->Value = 0;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  status = ERROR_INVALID_PARAMETER;
  for (size_t k = 0; k < v.n_ifs; k++) {
    if (memcmp(&v.ifs[k].guid, InterfaceGuid, sizeof(GUID)) == 0) {
      *InterfaceLuid = v.ifs[k].luid;
      status = NO_ERROR;
      break;
    }
  }
  hn_view_free(&v);
  return status;
}

/* ───────────────────────── unicast addresses ───────────────────────── */

static void fill_unicast_row(const hn_if *i, const hn_ip *ip, MIB_UNICASTIPADDRESS_ROW *row) {
  memset(row, 0, sizeof *row);
  hn_sockaddr_inet(ip, &row->Address);
  row->InterfaceLuid = i->luid;
  row->InterfaceIndex = i->index;
  row->PrefixOrigin = IpPrefixOriginManual;
  row->SuffixOrigin = IpSuffixOriginManual;
  row->ValidLifetime = row->PreferredLifetime = 0xFFFFFFFF;
  row->OnLinkPrefixLength = ip->prefix;
  row->DadState = IpDadStatePreferred;
}

DWORD WINAPI hn_GetUnicastIpAddressTable(ADDRESS_FAMILY Family, PMIB_UNICASTIPADDRESS_TABLE *Table) {
  HN_WINE_OR_NODE(GetUnicastIpAddressTable, (ADDRESS_FAMILY, PMIB_UNICASTIPADDRESS_TABLE *), (Family, Table));
  if (!Table || (Family != AF_UNSPEC && Family != AF_INET && Family != AF_INET6)) return ERROR_INVALID_PARAMETER;
  *Table = NULL;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  size_t n = 0;
  for (size_t k = 0; k < v.n_ifs; k++) {
    if (!v.ifs[k].ip_enabled) continue;
    if (Family != AF_INET6) n += v.ifs[k].n_v4;
    if (Family != AF_INET) n += v.ifs[k].n_v6;
  }
  PMIB_UNICASTIPADDRESS_TABLE t =
      hn_mib_alloc(FIELD_OFFSET(MIB_UNICASTIPADDRESS_TABLE, Table) + (n ? n : 1) * sizeof(MIB_UNICASTIPADDRESS_ROW));
  if (!t) {
    hn_view_free(&v);
    return ERROR_NOT_ENOUGH_MEMORY;
  }
  for (size_t k = 0; k < v.n_ifs; k++) {
    const hn_if *i = &v.ifs[k];
    if (!i->ip_enabled) continue;
    if (Family != AF_INET6)
      for (size_t j = 0; j < i->n_v4; j++) fill_unicast_row(i, &i->v4[j], &t->Table[t->NumEntries++]);
    if (Family != AF_INET)
      for (size_t j = 0; j < i->n_v6; j++) fill_unicast_row(i, &i->v6[j], &t->Table[t->NumEntries++]);
  }
  *Table = t;
  hn_view_free(&v);
  return NO_ERROR;
}

DWORD WINAPI hn_GetUnicastIpAddressEntry(PMIB_UNICASTIPADDRESS_ROW Row) {
  HN_WINE_OR_NODE(GetUnicastIpAddressEntry, (PMIB_UNICASTIPADDRESS_ROW), (Row));
  hn_ip want;
  if (!Row || !hn_ip_from_sockaddr(&Row->Address, &want)) return ERROR_INVALID_PARAMETER;
  if (Row->InterfaceLuid.Value == 0 && Row->InterfaceIndex == 0) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *i = hn_if_by_luid_or_index(&v, &Row->InterfaceLuid, Row->InterfaceIndex);
  status = i ? ERROR_NOT_FOUND : ERROR_FILE_NOT_FOUND;
  if (i && i->ip_enabled) {
    const hn_ip *list = want.family == AF_INET ? i->v4 : i->v6;
    size_t n = want.family == AF_INET ? i->n_v4 : i->n_v6;
    for (size_t j = 0; j < n; j++) {
      if (memcmp(list[j].bytes, want.bytes, want.family == AF_INET ? 4 : 16) == 0) {
        fill_unicast_row(i, &list[j], Row);
        status = NO_ERROR;
        break;
      }
    }
  }
  hn_view_free(&v);
  return status;
}

/* Every table of this DLL and of Wine's comes from the process heap. */
void WINAPI hn_FreeMibTable(PVOID Memory) {
  if (Memory) HeapFree(GetProcessHeap(), 0, Memory);
}
