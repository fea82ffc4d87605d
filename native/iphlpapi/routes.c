/*
 * The node's route table (Host.routes(): connected subnets, default routes, HostRoute and added
 * routes, plus the loopback's): GetIpForwardTable2, GetIpForwardTable, GetBestRoute2, GetBestRoute,
 * GetBestInterface(Ex). The best route is the longest prefix, then the lowest metric, as the
 * simulator's own lookup (src/dataplane) takes it.
 */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#define HN_WINE_OR_NODE(name, params, args)                    \
  do {                                                         \
    if (!hn_node_configured()) {                               \
      DWORD(WINAPI * fn) params = (void *)hn_wine_proc(#name); \
      return fn ? fn args : ERROR_NOT_SUPPORTED;               \
    }                                                          \
  } while (0)

/* Routes the node was told about are NETMGMT (static); the ones the stack derives are LOCAL. */
static NL_ROUTE_PROTOCOL protocol_of(const hn_route *r) {
  return r->origin == HN_RO_DEFAULT || r->origin == HN_RO_USER ? MIB_IPPROTO_NETMGMT : MIB_IPPROTO_LOCAL;
}

static void fill_forward_row2(const hn_route *r, MIB_IPFORWARD_ROW2 *row) {
  memset(row, 0, sizeof *row);
  row->InterfaceLuid = r->luid;
  row->InterfaceIndex = r->index;
  hn_sockaddr_inet(&r->dest, &row->DestinationPrefix.Prefix);
  row->DestinationPrefix.PrefixLength = r->dest.prefix;
  hn_sockaddr_inet(&r->next_hop, &row->NextHop);
  row->ValidLifetime = row->PreferredLifetime = 0xFFFFFFFF;
  row->Metric = r->metric;
  row->Protocol = protocol_of(r);
  row->Loopback = r->origin == HN_RO_LOOPBACK;
  row->Origin = NlroManual;
}

DWORD WINAPI hn_GetIpForwardTable2(ADDRESS_FAMILY Family, PMIB_IPFORWARD_TABLE2 *Table) {
  HN_WINE_OR_NODE(GetIpForwardTable2, (ADDRESS_FAMILY, PMIB_IPFORWARD_TABLE2 *), (Family, Table));
  if (!Table || (Family != AF_UNSPEC && Family != AF_INET && Family != AF_INET6)) return ERROR_INVALID_PARAMETER;
  *Table = NULL;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  size_t n = 0;
  for (size_t k = 0; k < v.n_routes; k++) n += Family == AF_UNSPEC || v.routes[k].dest.family == Family;
  if (n == 0) {
    hn_view_free(&v);
    return ERROR_NOT_FOUND;
  }
  PMIB_IPFORWARD_TABLE2 t = hn_mib_alloc(FIELD_OFFSET(MIB_IPFORWARD_TABLE2, Table) + n * sizeof(MIB_IPFORWARD_ROW2));
  if (!t) {
    hn_view_free(&v);
    return ERROR_NOT_ENOUGH_MEMORY;
  }
  for (size_t k = 0; k < v.n_routes; k++)
    if (Family == AF_UNSPEC || v.routes[k].dest.family == Family)
      fill_forward_row2(&v.routes[k], &t->Table[t->NumEntries++]);
  *Table = t;
  hn_view_free(&v);
  return NO_ERROR;
}

/* The legacy IPv4 row: on-link routes are DIRECT with next hop 0.0.0.0, the others INDIRECT. */
static void fill_forward_row(const hn_view *v, const hn_route *r, MIB_IPFORWARDROW *row) {
  memset(row, 0, sizeof *row);
  const hn_if *i = hn_if_by_index(v, r->index);
  row->dwForwardDest = hn_ipv4_dword(r->dest.bytes);
  row->dwForwardMask = hn_ipv4_mask(r->dest.prefix);
  row->dwForwardNextHop = hn_ipv4_dword(r->next_hop.bytes);
  row->dwForwardIfIndex = r->index;
  row->dwForwardType = row->dwForwardNextHop == 0 ? MIB_IPROUTE_TYPE_DIRECT : MIB_IPROUTE_TYPE_INDIRECT;
  row->dwForwardProto = protocol_of(r);
  row->dwForwardMetric1 = r->metric + (i ? hn_if_metric(i) : 0);
  row->dwForwardMetric2 = row->dwForwardMetric3 = row->dwForwardMetric4 = row->dwForwardMetric5 =
      MIB_IPROUTE_METRIC_UNUSED;
}

static int compare_forward_rows(const void *x, const void *y) {
  const MIB_IPFORWARDROW *a = x, *b = y;
  ULONG da = ntohl(a->dwForwardDest), db = ntohl(b->dwForwardDest);
  if (da != db) return da < db ? -1 : 1;
  if (a->dwForwardProto != b->dwForwardProto) return a->dwForwardProto < b->dwForwardProto ? -1 : 1;
  if (a->dwForwardPolicy != b->dwForwardPolicy) return a->dwForwardPolicy < b->dwForwardPolicy ? -1 : 1;
  ULONG ha = ntohl(a->dwForwardNextHop), hb = ntohl(b->dwForwardNextHop);
  return ha < hb ? -1 : ha > hb;
}

DWORD WINAPI hn_GetIpForwardTable(PMIB_IPFORWARDTABLE Table, PULONG SizePointer, BOOL Order) {
  HN_WINE_OR_NODE(GetIpForwardTable, (PMIB_IPFORWARDTABLE, PULONG, BOOL), (Table, SizePointer, Order));
  if (!SizePointer) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  size_t n = 0;
  for (size_t k = 0; k < v.n_routes; k++) n += v.routes[k].dest.family == AF_INET;
  ULONG need = (ULONG)(FIELD_OFFSET(MIB_IPFORWARDTABLE, table) + (n ? n : 1) * sizeof(MIB_IPFORWARDROW));
  if (n == 0) status = ERROR_NO_DATA;
  else if (!Table || *SizePointer < need) {
    *SizePointer = need;
    status = ERROR_INSUFFICIENT_BUFFER;
  } else {
    Table->dwNumEntries = 0;
    for (size_t k = 0; k < v.n_routes; k++)
      if (v.routes[k].dest.family == AF_INET) fill_forward_row(&v, &v.routes[k], &Table->table[Table->dwNumEntries++]);
    if (Order) qsort(Table->table, n, sizeof(MIB_IPFORWARDROW), compare_forward_rows);
  }
  hn_view_free(&v);
  return status;
}

/* The interface's first address of the family (the source a route from it takes). */
static const hn_ip *source_of(const hn_if *i, ADDRESS_FAMILY family) {
  if (family == AF_INET) return i->n_v4 ? &i->v4[0] : NULL;
  return i->n_v6 ? &i->v6[0] : NULL;
}

/*
 * GetBestRoute2: the documented codes (ERROR_INVALID_PARAMETER, ERROR_FILE_NOT_FOUND for an
 * unknown interface); no route at all is ERROR_NETWORK_UNREACHABLE (our choice).
 */
DWORD WINAPI hn_GetBestRoute2(NET_LUID *InterfaceLuid, NET_IFINDEX InterfaceIndex, const SOCKADDR_INET *SourceAddress,
                              const SOCKADDR_INET *DestinationAddress, ULONG AddressSortOptions,
                              PMIB_IPFORWARD_ROW2 BestRoute, SOCKADDR_INET *BestSourceAddress) {
  HN_WINE_OR_NODE(GetBestRoute2,
                  (NET_LUID *, NET_IFINDEX, const SOCKADDR_INET *, const SOCKADDR_INET *, ULONG, PMIB_IPFORWARD_ROW2,
                   SOCKADDR_INET *),
                  (InterfaceLuid, InterfaceIndex, SourceAddress, DestinationAddress, AddressSortOptions, BestRoute,
                   BestSourceAddress));
  hn_ip dest;
  if (!DestinationAddress || !BestRoute || !BestSourceAddress || !hn_ip_from_sockaddr(DestinationAddress, &dest))
    return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_if *only = NULL;
  if ((InterfaceLuid && InterfaceLuid->Value) || InterfaceIndex) {
    only = hn_if_by_luid_or_index(&v, InterfaceLuid, InterfaceIndex);
    if (!only) {
      hn_view_free(&v);
      return ERROR_FILE_NOT_FOUND;
    }
  }
  const hn_route *r = hn_best_route(&v, &dest, only);
  const hn_if *out = r ? hn_if_by_index(&v, r->index) : NULL;
  const hn_ip *src = out ? source_of(out, dest.family) : NULL;
  if (!r || !src) {
    status = ERROR_NETWORK_UNREACHABLE;
  } else {
    fill_forward_row2(r, BestRoute);
    hn_sockaddr_inet(src, BestSourceAddress);
  }
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_GetBestRoute(DWORD dwDestAddr, DWORD dwSourceAddr, PMIB_IPFORWARDROW pBestRoute) {
  HN_WINE_OR_NODE(GetBestRoute, (DWORD, DWORD, PMIB_IPFORWARDROW), (dwDestAddr, dwSourceAddr, pBestRoute));
  if (!pBestRoute) return ERROR_INVALID_PARAMETER;
  hn_ip dest;
  memset(&dest, 0, sizeof dest);
  dest.family = AF_INET;
  memcpy(dest.bytes, &dwDestAddr, 4);
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_route *r = hn_best_route(&v, &dest, NULL);
  if (r) fill_forward_row(&v, r, pBestRoute);
  else status = ERROR_CAN_NOT_COMPLETE;
  hn_view_free(&v);
  return status;
}

static DWORD best_interface(const hn_ip *dest, PDWORD index) {
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  const hn_route *r = hn_best_route(&v, dest, NULL);
  if (r) *index = r->index;
  else status = ERROR_CAN_NOT_COMPLETE;
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_GetBestInterface(IPAddr dwDestAddr, PDWORD pdwBestIfIndex) {
  HN_WINE_OR_NODE(GetBestInterface, (IPAddr, PDWORD), (dwDestAddr, pdwBestIfIndex));
  if (!pdwBestIfIndex) return ERROR_INVALID_PARAMETER;
  hn_ip dest;
  memset(&dest, 0, sizeof dest);
  dest.family = AF_INET;
  memcpy(dest.bytes, &dwDestAddr, 4);
  return best_interface(&dest, pdwBestIfIndex);
}

DWORD WINAPI hn_GetBestInterfaceEx(struct sockaddr *pDestAddr, PDWORD pdwBestIfIndex) {
  HN_WINE_OR_NODE(GetBestInterfaceEx, (struct sockaddr *, PDWORD), (pDestAddr, pdwBestIfIndex));
  if (!pDestAddr || !pdwBestIfIndex) return ERROR_INVALID_PARAMETER;
  hn_ip dest;
  if (!hn_ip_from_sockaddr((const SOCKADDR_INET *)pDestAddr, &dest)) return ERROR_INVALID_PARAMETER;
  return best_interface(&dest, pdwBestIfIndex);
}
