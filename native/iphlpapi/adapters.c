/*
 * The adapter lists: GetAdaptersAddresses (what Go's net.Interfaces and Interface.Addrs read),
 * GetAdaptersInfo, GetIpAddrTable and GetNumberOfInterfaces, from the node's view (view.c).
 *
 * Which adapters: the interfaces TCP/IP is bound to — the loopback pseudo-interface, the physical
 * NICs not bound to an external vSwitch, the host vNICs of the vSwitches, the host vNICs of
 * host-attached endpoints. A physical NIC under an external vSwitch is listed only with
 * GAA_FLAG_INCLUDE_ALL_INTERFACES (and by GetIfTable2), without addresses. The layouts are the
 * Windows SDK's (mingw-w64's iptypes.h, ipmib.h); test/wine/iphlpapi.test.ts checks them against
 * literal offsets.
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the GetAdaptersAddresses documentation lists per IPv4 address (Vista and later): the host,
 * the subnet and the subnet broadcast prefixes; per adapter a multicast and a broadcast prefix. */
static void add_prefix(hn_arena *a, PIP_ADAPTER_PREFIX **link, ADDRESS_FAMILY family, const BYTE *bytes,
                       ULONG length) {
  PIP_ADAPTER_PREFIX p = hn_take(a, sizeof *p, 8);
  size_t salen = family == AF_INET ? sizeof(SOCKADDR_IN) : sizeof(SOCKADDR_IN6);
  void *sa = hn_take(a, salen, 8);
  if (!a->write) return;
  p->Length = sizeof *p;
  p->PrefixLength = length;
  p->Address.lpSockaddr = sa;
  p->Address.iSockaddrLength = (INT)salen;
  if (family == AF_INET) {
    ((SOCKADDR_IN *)sa)->sin_family = AF_INET;
    memcpy(&((SOCKADDR_IN *)sa)->sin_addr, bytes, 4);
  } else {
    ((SOCKADDR_IN6 *)sa)->sin6_family = AF_INET6;
    memcpy(&((SOCKADDR_IN6 *)sa)->sin6_addr, bytes, 16);
  }
  **link = p;
  *link = &p->Next;
}

static void address_prefixes(hn_arena *a, PIP_ADAPTER_PREFIX **link, const hn_ip *ip) {
  BYTE net[16], bcast[16];
  size_t n = ip->family == AF_INET ? 4 : 16;
  for (size_t k = 0; k < n; k++) {
    unsigned bits = ip->prefix > k * 8 ? ip->prefix - (unsigned)(k * 8) : 0;
    BYTE mask = bits >= 8 ? 0xFF : (BYTE)(0xFF << (8 - bits));
    net[k] = ip->bytes[k] & mask;
    bcast[k] = (BYTE)(ip->bytes[k] | (BYTE)~mask);
  }
  add_prefix(a, link, ip->family, net, ip->prefix);
  add_prefix(a, link, ip->family, ip->bytes, ip->family == AF_INET ? 32 : 128);
  if (ip->family == AF_INET) add_prefix(a, link, AF_INET, bcast, 32);
}

static SOCKET_ADDRESS socket_address(hn_arena *a, const hn_ip *ip) {
  SOCKET_ADDRESS out = {NULL, 0};
  size_t salen = ip->family == AF_INET ? sizeof(SOCKADDR_IN) : sizeof(SOCKADDR_IN6);
  void *sa = hn_take(a, salen, 8);
  if (!a->write) return out;
  if (ip->family == AF_INET) {
    ((SOCKADDR_IN *)sa)->sin_family = AF_INET;
    memcpy(&((SOCKADDR_IN *)sa)->sin_addr, ip->bytes, 4);
  } else {
    ((SOCKADDR_IN6 *)sa)->sin6_family = AF_INET6;
    memcpy(&((SOCKADDR_IN6 *)sa)->sin6_addr, ip->bytes, 16);
  }
  out.lpSockaddr = sa;
  out.iSockaddrLength = (INT)salen;
  return out;
}

static WCHAR *wide_copy(hn_arena *a, const WCHAR *s) {
  size_t n = (wcslen(s) + 1) * sizeof(WCHAR);
  WCHAR *p = hn_take(a, n, 2);
  if (a->write) memcpy(p, s, n);
  return p;
}

static int wants(ULONG family, ADDRESS_FAMILY f) {
  return family == AF_UNSPEC || family == f;
}

/* One pass over the view: measures (a->write 0) or writes the adapter list. */
static void adapter_list(const hn_view *v, ULONG family, ULONG flags, hn_arena *a) {
  PIP_ADAPTER_ADDRESSES *next = NULL;
  for (size_t k = 0; k < v->n_ifs; k++) {
    const hn_if *i = &v->ifs[k];
    int v4 = i->ip_enabled, v6 = i->ip_enabled && i->n_v6 > 0;
    if (!(flags & GAA_FLAG_INCLUDE_ALL_INTERFACES)) {
      if (!i->ip_enabled) continue;
      if (family == AF_INET && !v4) continue;
      if (family == AF_INET6 && !v6) continue;
    }
    PIP_ADAPTER_ADDRESSES aa = hn_take(a, sizeof *aa, 8);
    if (a->write) {
      if (next) *next = aa;
      next = &aa->Next;
      aa->Length = sizeof *aa;
      aa->IfIndex = v4 ? i->index : 0;
      aa->Ipv6IfIndex = v6 ? i->index : 0;
      memcpy(aa->PhysicalAddress, i->mac, i->mac_len > 8 ? 8 : i->mac_len);
      aa->PhysicalAddressLength = i->mac_len;
      aa->Flags = (v4 ? IP_ADAPTER_IPV4_ENABLED : 0) | (v6 ? IP_ADAPTER_IPV6_ENABLED : 0);
      aa->Mtu = i->mtu;
      aa->IfType = i->type;
      aa->OperStatus = i->up ? IfOperStatusUp : IfOperStatusDown;
      aa->TransmitLinkSpeed = aa->ReceiveLinkSpeed = hn_if_speed(i);
      aa->Ipv4Metric = aa->Ipv6Metric = hn_if_metric(i);
      aa->Luid = i->luid;
      aa->CompartmentId = 1;
      aa->ConnectionType = NET_IF_CONNECTION_DEDICATED;
      aa->TunnelType = TUNNEL_TYPE_NONE;
    }
    char *name = hn_take(a, strlen(i->adapter_name) + 1, 1);
    if (a->write) {
      memcpy(name, i->adapter_name, strlen(i->adapter_name) + 1);
      aa->AdapterName = name;
    }
    if (!(flags & GAA_FLAG_SKIP_UNICAST) && i->ip_enabled) {
      PIP_ADAPTER_UNICAST_ADDRESS *link = a->write ? &aa->FirstUnicastAddress : NULL;
      for (int pass = 0; pass < 2; pass++) {
        const hn_ip *list = pass == 0 ? i->v4 : i->v6;
        size_t n = pass == 0 ? i->n_v4 : i->n_v6;
        if (!wants(family, pass == 0 ? AF_INET : AF_INET6)) continue;
        for (size_t j = 0; j < n; j++) {
          PIP_ADAPTER_UNICAST_ADDRESS u = hn_take(a, sizeof *u, 8);
          SOCKET_ADDRESS sa = socket_address(a, &list[j]);
          if (!a->write) continue;
          u->Length = sizeof *u;
          u->Flags = i->kind == HN_IF_LOOPBACK ? 0 : IP_ADAPTER_ADDRESS_DNS_ELIGIBLE;
          u->Address = sa;
          u->PrefixOrigin = IpPrefixOriginManual;
          u->SuffixOrigin = IpSuffixOriginManual;
          u->DadState = IpDadStatePreferred;
          u->ValidLifetime = u->PreferredLifetime = u->LeaseLifetime = 0xFFFFFFFF;
          u->OnLinkPrefixLength = list[j].prefix;
          *link = u;
          link = &u->Next;
        }
      }
    }
    if (!(flags & GAA_FLAG_SKIP_DNS_SERVER)) {
      PIP_ADAPTER_DNS_SERVER_ADDRESS *link = a->write ? &aa->FirstDnsServerAddress : NULL;
      for (size_t j = 0; j < i->n_dns; j++) {
        if (!wants(family, i->dns[j].family)) continue;
        PIP_ADAPTER_DNS_SERVER_ADDRESS d = hn_take(a, sizeof *d, 8);
        SOCKET_ADDRESS sa = socket_address(a, &i->dns[j]);
        if (!a->write) continue;
        d->Length = sizeof *d;
        d->Address = sa;
        *link = d;
        link = &d->Next;
      }
    }
    WCHAR *suffix = wide_copy(a, L"");
    WCHAR *description = wide_copy(a, i->description);
    WCHAR *friendly = wide_copy(a, (flags & GAA_FLAG_SKIP_FRIENDLY_NAME) ? L"" : i->alias);
    if (a->write) {
      aa->DnsSuffix = suffix;
      aa->Description = description;
      aa->FriendlyName = friendly;
    }
    if ((flags & GAA_FLAG_INCLUDE_PREFIX) && i->ip_enabled) {
      PIP_ADAPTER_PREFIX *link = a->write ? &aa->FirstPrefix : NULL;
      static const BYTE multicast4[4] = {224, 0, 0, 0}, broadcast4[4] = {255, 255, 255, 255};
      static const BYTE multicast6[16] = {0xFF};
      if (wants(family, AF_INET) && i->n_v4) {
        for (size_t j = 0; j < i->n_v4; j++) address_prefixes(a, link ? &link : NULL, &i->v4[j]);
        add_prefix(a, link ? &link : NULL, AF_INET, multicast4, 4);
        add_prefix(a, link ? &link : NULL, AF_INET, broadcast4, 32);
      }
      if (wants(family, AF_INET6) && i->n_v6) {
        for (size_t j = 0; j < i->n_v6; j++) address_prefixes(a, link ? &link : NULL, &i->v6[j]);
        add_prefix(a, link ? &link : NULL, AF_INET6, multicast6, 8);
      }
    }
    if ((flags & GAA_FLAG_INCLUDE_GATEWAYS) && wants(family, AF_INET)) {
      PIP_ADAPTER_GATEWAY_ADDRESS_LH *link = a->write ? &aa->FirstGatewayAddress : NULL;
      for (size_t j = 0; j < i->n_gateways; j++) {
        PIP_ADAPTER_GATEWAY_ADDRESS_LH g = hn_take(a, sizeof *g, 8);
        SOCKET_ADDRESS sa = socket_address(a, &i->gateways[j]);
        if (!a->write) continue;
        g->Length = sizeof *g;
        g->Address = sa;
        *link = g;
        link = &g->Next;
      }
    }
  }
}

ULONG WINAPI hn_GetAdaptersAddresses(ULONG Family, ULONG Flags, PVOID Reserved, PIP_ADAPTER_ADDRESSES Addresses,
                                     PULONG SizePointer) {
  if (!hn_node_configured()) {
    ULONG(WINAPI * fn)(ULONG, ULONG, PVOID, PIP_ADAPTER_ADDRESSES, PULONG) =
        (void *)hn_wine_proc("GetAdaptersAddresses");
    return fn ? fn(Family, Flags, Reserved, Addresses, SizePointer) : ERROR_NOT_SUPPORTED;
  }
  if (!SizePointer || Reserved || (Family != AF_UNSPEC && Family != AF_INET && Family != AF_INET6))
    return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  hn_arena a = {(uintptr_t)Addresses, 0, 0};
  adapter_list(&v, Family, Flags, &a);
  if (a.used == 0) status = ERROR_NO_DATA;
  else if (!Addresses || *SizePointer < a.used) {
    *SizePointer = (ULONG)a.used;
    status = ERROR_BUFFER_OVERFLOW;
  } else {
    hn_arena w = {(uintptr_t)Addresses, 0, 1};
    adapter_list(&v, Family, Flags, &w);
    *SizePointer = (ULONG)w.used;
  }
  hn_view_free(&v);
  return status;
}

/* ───────────────────────── GetAdaptersInfo ───────────────────────── */

static void ip_string(IP_ADDR_STRING *s, const char *address, const char *mask, DWORD context) {
  snprintf(s->IpAddress.String, sizeof s->IpAddress.String, "%s", address);
  snprintf(s->IpMask.String, sizeof s->IpMask.String, "%s", mask);
  s->Context = context;
}

static int listed_in_info(const hn_if *i) {
  return i->ip_enabled && i->kind != HN_IF_LOOPBACK;
}

static void info_list(const hn_view *v, hn_arena *a) {
  size_t n = 0;
  for (size_t k = 0; k < v->n_ifs; k++) n += listed_in_info(&v->ifs[k]);
  PIP_ADAPTER_INFO array = hn_take(a, n * sizeof *array, 8);
  size_t at = 0;
  for (size_t k = 0; k < v->n_ifs; k++) {
    const hn_if *i = &v->ifs[k];
    if (!listed_in_info(i)) continue;
    PIP_ADAPTER_INFO info = a->write ? &array[at] : NULL;
    /* the second and later addresses are chained after the array */
    IP_ADDR_STRING *more = NULL;
    for (size_t j = 1; j < i->n_v4; j++) {
      IP_ADDR_STRING *s = hn_take(a, sizeof *s, 8);
      if (!a->write) continue;
      char addr[16], mask[16];
      BYTE m[4];
      DWORD d = hn_ipv4_mask(i->v4[j].prefix);
      memcpy(m, &d, 4);
      hn_ipv4_text(i->v4[j].bytes, addr);
      hn_ipv4_text(m, mask);
      ip_string(s, addr, mask, hn_ipv4_dword(i->v4[j].bytes));
      if (more) more->Next = s;
      else info->IpAddressList.Next = s;
      more = s;
    }
    at++;
    if (!a->write) continue;
    if (at < n) info->Next = &array[at];
    info->ComboIndex = i->index;
    snprintf(info->AdapterName, sizeof info->AdapterName, "%s", i->adapter_name);
    WideCharToMultiByte(CP_ACP, 0, i->description, -1, info->Description, sizeof info->Description - 1, NULL,
                        NULL);
    info->AddressLength = i->mac_len > MAX_ADAPTER_ADDRESS_LENGTH ? MAX_ADAPTER_ADDRESS_LENGTH : i->mac_len;
    memcpy(info->Address, i->mac, info->AddressLength);
    info->Index = i->index;
    info->Type = MIB_IF_TYPE_ETHERNET;
    if (i->n_v4) {
      char addr[16], mask[16];
      BYTE m[4];
      DWORD d = hn_ipv4_mask(i->v4[0].prefix);
      memcpy(m, &d, 4);
      hn_ipv4_text(i->v4[0].bytes, addr);
      hn_ipv4_text(m, mask);
      ip_string(&info->IpAddressList, addr, mask, hn_ipv4_dword(i->v4[0].bytes));
    } else {
      ip_string(&info->IpAddressList, "0.0.0.0", "0.0.0.0", 0);
    }
    if (i->n_gateways) {
      char gw[16];
      hn_ipv4_text(i->gateways[0].bytes, gw);
      ip_string(&info->GatewayList, gw, "255.255.255.255", 0);
    } else {
      ip_string(&info->GatewayList, "0.0.0.0", "0.0.0.0", 0);
    }
  }
}

ULONG WINAPI hn_GetAdaptersInfo(PIP_ADAPTER_INFO AdapterInfo, PULONG SizePointer) {
  if (!hn_node_configured()) {
    ULONG(WINAPI * fn)(PIP_ADAPTER_INFO, PULONG) = (void *)hn_wine_proc("GetAdaptersInfo");
    return fn ? fn(AdapterInfo, SizePointer) : ERROR_NOT_SUPPORTED;
  }
  if (!SizePointer) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  hn_arena a = {(uintptr_t)AdapterInfo, 0, 0};
  info_list(&v, &a);
  if (a.used == 0) status = ERROR_NO_DATA;
  else if (!AdapterInfo || *SizePointer < a.used) {
    *SizePointer = (ULONG)a.used;
    status = ERROR_BUFFER_OVERFLOW;
  } else {
    hn_arena w = {(uintptr_t)AdapterInfo, 0, 1};
    info_list(&v, &w);
  }
  hn_view_free(&v);
  return status;
}

/* ───────────────────────── GetIpAddrTable, GetNumberOfInterfaces ───────────────────────── */

static int compare_addr_rows(const void *x, const void *y) {
  ULONG a = ntohl(((const MIB_IPADDRROW *)x)->dwAddr), b = ntohl(((const MIB_IPADDRROW *)y)->dwAddr);
  return a < b ? -1 : a > b;
}

DWORD WINAPI hn_GetIpAddrTable(PMIB_IPADDRTABLE Table, PULONG SizePointer, BOOL Order) {
  if (!hn_node_configured()) {
    DWORD(WINAPI * fn)(PMIB_IPADDRTABLE, PULONG, BOOL) = (void *)hn_wine_proc("GetIpAddrTable");
    return fn ? fn(Table, SizePointer, Order) : ERROR_NOT_SUPPORTED;
  }
  if (!SizePointer) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  size_t n = 0;
  for (size_t k = 0; k < v.n_ifs; k++)
    if (v.ifs[k].ip_enabled) n += v.ifs[k].n_v4;
  ULONG need = (ULONG)(FIELD_OFFSET(MIB_IPADDRTABLE, table) + (n ? n : 1) * sizeof(MIB_IPADDRROW));
  if (n == 0) status = ERROR_NO_DATA;
  else if (!Table || *SizePointer < need) {
    *SizePointer = need;
    status = ERROR_INSUFFICIENT_BUFFER;
  } else {
    Table->dwNumEntries = (DWORD)n;
    size_t at = 0;
    for (size_t k = 0; k < v.n_ifs; k++) {
      const hn_if *i = &v.ifs[k];
      if (!i->ip_enabled) continue;
      for (size_t j = 0; j < i->n_v4; j++) {
        MIB_IPADDRROW *r = &Table->table[at++];
        memset(r, 0, sizeof *r);
        r->dwAddr = hn_ipv4_dword(i->v4[j].bytes);
        r->dwIndex = i->index;
        r->dwMask = hn_ipv4_mask(i->v4[j].prefix);
        r->dwBCastAddr = 1;
        r->dwReasmSize = 65535;
        r->wType = MIB_IPADDR_PRIMARY;
      }
    }
    if (Order) qsort(Table->table, n, sizeof(MIB_IPADDRROW), compare_addr_rows);
  }
  hn_view_free(&v);
  return status;
}

DWORD WINAPI hn_GetNumberOfInterfaces(PDWORD Count) {
  if (!hn_node_configured()) {
    DWORD(WINAPI * fn)(PDWORD) = (void *)hn_wine_proc("GetNumberOfInterfaces");
    return fn ? fn(Count) : ERROR_NOT_SUPPORTED;
  }
  if (!Count) return ERROR_INVALID_PARAMETER;
  hn_view v;
  DWORD status = hn_view_load(&v);
  if (status != NO_ERROR) return status;
  DWORD n = 0;
  for (size_t k = 0; k < v.n_ifs; k++) n += v.ifs[k].ip_enabled != 0;
  *Count = n;
  hn_view_free(&v);
  return NO_ERROR;
}
