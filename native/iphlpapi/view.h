/*
 * iphlpapi.dll for hnsim (issue 15): the node's interfaces and routes as the simulator reports them
 * (JSON-RPC `GetIpInterfaces`, docs/api.md; src/host/iphelper.ts), read once per call, and the
 * helpers every export shares: lookups, SOCKADDR_INET, a two-pass buffer writer, and the way to
 * Wine's own iphlpapi (kept in system32 as iphlpapi_wine.dll) for what the node does not answer.
 */
#ifndef HN_IPHLPAPI_VIEW_H
#define HN_IPHLPAPI_VIEW_H

#include "hnsim.h"

#include <iphlpapi.h>
#include <netioapi.h>
#include <stdint.h>

/* The module Wine's own iphlpapi.dll is saved as in system32 (src/wine/prefix.ts). */
#define HN_WINE_IPHLPAPI L"iphlpapi_wine.dll"

/* An address, or a prefix when `prefix` is its length. */
typedef struct hn_ip {
  ADDRESS_FAMILY family; /* AF_INET or AF_INET6 */
  BYTE bytes[16];        /* network order; 4 used for IPv4 */
  UINT8 prefix;
} hn_ip;

enum { HN_IF_PHYSICAL, HN_IF_HOSTVNIC, HN_IF_ENDPOINT, HN_IF_LOOPBACK };
enum { HN_RO_CONNECTED, HN_RO_DEFAULT, HN_RO_HOSTROUTE, HN_RO_USER, HN_RO_LOOPBACK };

typedef struct hn_if {
  NET_IFINDEX index;
  NET_LUID luid;
  ULONG type; /* IF_TYPE_ETHERNET_CSMACD or IF_TYPE_SOFTWARE_LOOPBACK */
  GUID guid;
  char adapter_name[40]; /* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" */
  WCHAR alias[IF_MAX_STRING_SIZE + 1];
  WCHAR description[IF_MAX_STRING_SIZE + 1];
  BYTE mac[8];
  ULONG mac_len;
  ULONG mtu;
  int up;
  int kind;
  int ip_enabled; /* TCP/IP bound (a physical NIC under an external vSwitch is not) */
  hn_ip *v4;
  size_t n_v4;
  hn_ip *v6;
  size_t n_v6;
  hn_ip *gateways; /* IPv4 default gateways */
  size_t n_gateways;
  hn_ip *dns;
  size_t n_dns;
} hn_if;

typedef struct hn_route {
  hn_ip dest; /* the destination prefix */
  hn_ip next_hop; /* all zero: on-link */
  NET_IFINDEX index;
  NET_LUID luid;
  ULONG metric;
  int origin;
} hn_route;

typedef struct hn_view {
  hn_if *ifs;
  size_t n_ifs;
  hn_route *routes;
  size_t n_routes;
} hn_view;

/*
 * Ask the node: NO_ERROR, or a Win32 code — RPC_S_SERVER_UNAVAILABLE (1722) when the simulator
 * cannot be reached, RPC_S_CALL_FAILED (1726) when its answer was lost, ERROR_NOT_ENOUGH_MEMORY,
 * ERROR_INVALID_DATA for an answer that is not the documented shape. Free with hn_view_free.
 */
DWORD hn_view_load(hn_view *v);
void hn_view_free(hn_view *v);

const hn_if *hn_if_by_index(const hn_view *v, NET_IFINDEX index);
const hn_if *hn_if_by_luid(const hn_view *v, const NET_LUID *luid);
/* A LUID if its value is not zero, else the index (the MIB_*_ROW2 lookup rule). */
const hn_if *hn_if_by_luid_or_index(const hn_view *v, const NET_LUID *luid, NET_IFINDEX index);

/* Whether this process talks to a simulated node (HNSIM_ENDPOINT is set). */
int hn_node_configured(void);
/* An export of Wine's own iphlpapi (NULL when it cannot be loaded). */
FARPROC hn_wine_proc(const char *name);

/* Interface metrics (route metric + interface metric is what GetIpForwardTable's Metric1 shows). */
#define HN_METRIC_ETHERNET 15
#define HN_METRIC_LOOPBACK 75
ULONG hn_if_metric(const hn_if *i);
/* Link speed in bits per second: 10 Gbps for every adapter (Hyper-V's), 1.07 Gbps for the loopback. */
ULONG64 hn_if_speed(const hn_if *i);

void hn_sockaddr_inet(const hn_ip *ip, SOCKADDR_INET *out);
/* A SOCKADDR_INET as an address (family AF_INET/AF_INET6); FALSE for any other family. */
int hn_ip_from_sockaddr(const SOCKADDR_INET *sa, hn_ip *out);
/* Whether `ip` lies in the prefix `p` (same family). */
int hn_prefix_contains(const hn_ip *p, const hn_ip *ip);
/* `a.b.c.d` of an IPv4 address (network order), and of a prefix length's netmask. */
void hn_ipv4_text(const BYTE bytes[4], char out[16]);
DWORD hn_ipv4_dword(const BYTE bytes[4]);
DWORD hn_ipv4_mask(UINT8 prefix);

/*
 * The route `GetBestRoute2` would take to `dest` (longest prefix, then lowest metric; only over
 * interface `only` when it is not NULL), or NULL.
 */
const hn_route *hn_best_route(const hn_view *v, const hn_ip *dest, const hn_if *only);

/*
 * A buffer written in two passes: the first (`write` 0) only measures, the second writes. Offsets
 * are aligned against the real buffer address in both, so the measured size is the size needed.
 */
typedef struct hn_arena {
  uintptr_t base;
  size_t used;
  int write;
} hn_arena;

/* Room for `size` bytes aligned to `align`: a zeroed pointer when writing, NULL when measuring. */
void *hn_take(hn_arena *a, size_t size, size_t align);

/* Tables the caller frees with FreeMibTable: the process heap, as Windows' own. */
void *hn_mib_alloc(size_t size);

#endif
