/*
 * iplayout.exe (issue 15, test/wine/iphlpapi.test.ts): hnsim's iphlpapi.dll as a C caller sees it.
 * Prints `key=value` lines:
 *
 *   layout.<STRUCT>.<field>=<offset>   sizes and offsets as this program's headers (mingw-w64) lay
 *                                      the structures out, for the test to compare with the Windows
 *                                      SDK's
 *   info.<n>.<field>=…                 GetAdaptersInfo, read at the SDK's byte offsets (below)
 *   if2.<n>.<field>=…                  GetIfTable2, likewise
 *   route.<n>.<field>=…                GetIpForwardTable2 (AF_UNSPEC), likewise
 *   …                                  conversions, GetBestRoute2, GetIfEntry2, a notification
 *
 * The data is read through the SDK offsets written out here (x64; wireguard-windows
 * tunnel/winipcfg types_test.go for MIB_IF_ROW2 and MIB_IPFORWARD_ROW2, IPTypes.h's field list for
 * IP_ADAPTER_INFO), not through the structures, so a DLL that writes a field elsewhere shows.
 */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>
#include <netioapi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define LAYOUT(type, field) printf("layout.%s.%s=%u\n", #type, #field, (unsigned)offsetof(type, field))
#define SIZE(type) printf("layout.%s.size=%u\n", #type, (unsigned)sizeof(type))

/* The SDK's x64 offsets the data is read at. */
enum {
  INFO_SIZE = 704,
  INFO_NEXT = 0,
  INFO_ADAPTER_NAME = 12,
  INFO_DESCRIPTION = 272,
  INFO_ADDRESS_LENGTH = 404,
  INFO_ADDRESS = 408,
  INFO_INDEX = 416,
  INFO_TYPE = 420,
  INFO_IP_ADDRESS = 440 + 8, /* IpAddressList.IpAddress.String */
  INFO_IP_MASK = 440 + 24,   /* IpAddressList.IpMask.String */
  INFO_GATEWAY = 488 + 8,    /* GatewayList.IpAddress.String */
  IF2_SIZE = 1352,
  IF2_LUID = 0,
  IF2_INDEX = 8,
  IF2_ALIAS = 28,
  IF2_DESCRIPTION = 542,
  IF2_PHYS_LEN = 1056,
  IF2_PHYS = 1060,
  IF2_MTU = 1124,
  IF2_TYPE = 1128,
  IF2_OPER_STATUS = 1156,
  IF2_TABLE = 8,
  FWD_SIZE = 104,
  FWD_LUID = 0,
  FWD_INDEX = 8,
  FWD_DEST = 12,         /* DestinationPrefix.Prefix (SOCKADDR_INET) */
  FWD_PREFIX_LENGTH = 40, /* DestinationPrefix.PrefixLength */
  FWD_NEXT_HOP = 44,
  FWD_METRIC = 84,
  FWD_PROTOCOL = 88,
  FWD_LOOPBACK = 92,
  FWD_TABLE = 8,
};

static unsigned u32(const BYTE *p) {
  unsigned v;
  memcpy(&v, p, 4);
  return v;
}

static unsigned long long u64(const BYTE *p) {
  unsigned long long v;
  memcpy(&v, p, 8);
  return v;
}

static void mac_text(const BYTE *p, unsigned n, char *out) {
  out[0] = 0;
  for (unsigned i = 0; i < n && i < 8; i++) sprintf(out + strlen(out), i ? "-%02X" : "%02X", p[i]);
}

/* A SOCKADDR_INET at p: its address as text. */
static void sockaddr_text(const BYTE *p, char *out, size_t cap) {
  unsigned short family;
  memcpy(&family, p, 2);
  if (family == AF_INET) inet_ntop(AF_INET, p + 4, out, cap);
  else if (family == AF_INET6) inet_ntop(AF_INET6, p + 8, out, cap);
  else snprintf(out, cap, "family-%u", family);
}

static void layouts(void) {
  SIZE(IP_ADAPTER_INFO);
  LAYOUT(IP_ADAPTER_INFO, ComboIndex);
  LAYOUT(IP_ADAPTER_INFO, AdapterName);
  LAYOUT(IP_ADAPTER_INFO, Description);
  LAYOUT(IP_ADAPTER_INFO, AddressLength);
  LAYOUT(IP_ADAPTER_INFO, Address);
  LAYOUT(IP_ADAPTER_INFO, Index);
  LAYOUT(IP_ADAPTER_INFO, Type);
  LAYOUT(IP_ADAPTER_INFO, DhcpEnabled);
  LAYOUT(IP_ADAPTER_INFO, CurrentIpAddress);
  LAYOUT(IP_ADAPTER_INFO, IpAddressList);
  LAYOUT(IP_ADAPTER_INFO, GatewayList);
  LAYOUT(IP_ADAPTER_INFO, DhcpServer);
  LAYOUT(IP_ADAPTER_INFO, HaveWins);
  LAYOUT(IP_ADAPTER_INFO, PrimaryWinsServer);
  LAYOUT(IP_ADAPTER_INFO, SecondaryWinsServer);
  LAYOUT(IP_ADAPTER_INFO, LeaseObtained);
  LAYOUT(IP_ADAPTER_INFO, LeaseExpires);
  SIZE(IP_ADDR_STRING);
  SIZE(MIB_IF_ROW2);
  LAYOUT(MIB_IF_ROW2, InterfaceIndex);
  LAYOUT(MIB_IF_ROW2, InterfaceGuid);
  LAYOUT(MIB_IF_ROW2, Alias);
  LAYOUT(MIB_IF_ROW2, Description);
  LAYOUT(MIB_IF_ROW2, PhysicalAddressLength);
  LAYOUT(MIB_IF_ROW2, PhysicalAddress);
  LAYOUT(MIB_IF_ROW2, PermanentPhysicalAddress);
  LAYOUT(MIB_IF_ROW2, Mtu);
  LAYOUT(MIB_IF_ROW2, Type);
  LAYOUT(MIB_IF_ROW2, TunnelType);
  LAYOUT(MIB_IF_ROW2, MediaType);
  LAYOUT(MIB_IF_ROW2, PhysicalMediumType);
  LAYOUT(MIB_IF_ROW2, AccessType);
  LAYOUT(MIB_IF_ROW2, DirectionType);
  LAYOUT(MIB_IF_ROW2, InterfaceAndOperStatusFlags);
  LAYOUT(MIB_IF_ROW2, OperStatus);
  LAYOUT(MIB_IF_ROW2, AdminStatus);
  LAYOUT(MIB_IF_ROW2, MediaConnectState);
  LAYOUT(MIB_IF_ROW2, NetworkGuid);
  LAYOUT(MIB_IF_ROW2, ConnectionType);
  LAYOUT(MIB_IF_ROW2, TransmitLinkSpeed);
  LAYOUT(MIB_IF_ROW2, ReceiveLinkSpeed);
  LAYOUT(MIB_IF_ROW2, InOctets);
  LAYOUT(MIB_IF_ROW2, OutQLen);
  SIZE(MIB_IF_TABLE2);
  LAYOUT(MIB_IF_TABLE2, Table);
  SIZE(MIB_IPFORWARD_ROW2);
  LAYOUT(MIB_IPFORWARD_ROW2, InterfaceIndex);
  LAYOUT(MIB_IPFORWARD_ROW2, DestinationPrefix);
  LAYOUT(MIB_IPFORWARD_ROW2, NextHop);
  LAYOUT(MIB_IPFORWARD_ROW2, SitePrefixLength);
  LAYOUT(MIB_IPFORWARD_ROW2, ValidLifetime);
  LAYOUT(MIB_IPFORWARD_ROW2, PreferredLifetime);
  LAYOUT(MIB_IPFORWARD_ROW2, Metric);
  LAYOUT(MIB_IPFORWARD_ROW2, Protocol);
  LAYOUT(MIB_IPFORWARD_ROW2, Loopback);
  LAYOUT(MIB_IPFORWARD_ROW2, AutoconfigureAddress);
  LAYOUT(MIB_IPFORWARD_ROW2, Publish);
  LAYOUT(MIB_IPFORWARD_ROW2, Immortal);
  LAYOUT(MIB_IPFORWARD_ROW2, Age);
  LAYOUT(MIB_IPFORWARD_ROW2, Origin);
  SIZE(MIB_IPFORWARD_TABLE2);
  LAYOUT(MIB_IPFORWARD_TABLE2, Table);
  SIZE(IP_ADAPTER_ADDRESSES);
  LAYOUT(IP_ADAPTER_ADDRESSES, FriendlyName);
  LAYOUT(IP_ADAPTER_ADDRESSES, Mtu);
  LAYOUT(IP_ADAPTER_ADDRESSES, FirstPrefix);
  LAYOUT(IP_ADAPTER_ADDRESSES, FirstGatewayAddress);
  LAYOUT(IP_ADAPTER_ADDRESSES, Luid);
}

static void adapters_info(void) {
  ULONG size = 0;
  DWORD r = GetAdaptersInfo(NULL, &size);
  printf("info.probe=%lu\n", r);
  BYTE *buf = HeapAlloc(GetProcessHeap(), 0, size);
  r = GetAdaptersInfo((PIP_ADAPTER_INFO)buf, &size);
  printf("info.status=%lu\n", r);
  if (r != NO_ERROR) return;
  int n = 0;
  for (BYTE *p = buf; p; n++) {
    char mac[32];
    mac_text(p + INFO_ADDRESS, u32(p + INFO_ADDRESS_LENGTH), mac);
    printf("info.%d.adapterName=%s\n", n, (char *)(p + INFO_ADAPTER_NAME));
    printf("info.%d.description=%s\n", n, (char *)(p + INFO_DESCRIPTION));
    printf("info.%d.address=%s\n", n, mac);
    printf("info.%d.index=%u\n", n, u32(p + INFO_INDEX));
    printf("info.%d.type=%u\n", n, u32(p + INFO_TYPE));
    printf("info.%d.ipAddress=%s\n", n, (char *)(p + INFO_IP_ADDRESS));
    printf("info.%d.ipMask=%s\n", n, (char *)(p + INFO_IP_MASK));
    printf("info.%d.gateway=%s\n", n, (char *)(p + INFO_GATEWAY));
    p = (BYTE *)(ULONG_PTR)u64(p + INFO_NEXT);
  }
  printf("info.count=%d\n", n);
  HeapFree(GetProcessHeap(), 0, buf);
}

static void if_table2(void) {
  PMIB_IF_TABLE2 table = NULL;
  DWORD r = GetIfTable2(&table);
  printf("if2.status=%lu\n", r);
  if (r != NO_ERROR) return;
  unsigned n = u32((BYTE *)table);
  printf("if2.count=%u\n", n);
  for (unsigned i = 0; i < n; i++) {
    const BYTE *row = (const BYTE *)table + IF2_TABLE + (size_t)i * IF2_SIZE;
    char mac[32];
    mac_text(row + IF2_PHYS, u32(row + IF2_PHYS_LEN), mac);
    printf("if2.%u.luid=%llu\n", i, u64(row + IF2_LUID));
    printf("if2.%u.index=%u\n", i, u32(row + IF2_INDEX));
    printf("if2.%u.alias=%ls\n", i, (const WCHAR *)(row + IF2_ALIAS));
    printf("if2.%u.description=%ls\n", i, (const WCHAR *)(row + IF2_DESCRIPTION));
    printf("if2.%u.mac=%s\n", i, mac);
    printf("if2.%u.mtu=%u\n", i, u32(row + IF2_MTU));
    printf("if2.%u.type=%u\n", i, u32(row + IF2_TYPE));
    printf("if2.%u.operStatus=%u\n", i, u32(row + IF2_OPER_STATUS));
    /* the conversions, each way, for every interface */
    NET_LUID luid;
    luid.Value = u64(row + IF2_LUID);
    NET_IFINDEX index = 0;
    DWORD c = ConvertInterfaceLuidToIndex(&luid, &index);
    printf("if2.%u.luidToIndex=%lu:%lu\n", i, c, index);
    NET_LUID back;
    back.Value = 0;
    c = ConvertInterfaceIndexToLuid(u32(row + IF2_INDEX), &back);
    printf("if2.%u.indexToLuid=%lu:%llu\n", i, c, back.Value);
    WCHAR alias[IF_MAX_STRING_SIZE + 1];
    c = ConvertInterfaceLuidToAlias(&luid, alias, IF_MAX_STRING_SIZE + 1);
    printf("if2.%u.luidToAlias=%lu:%ls\n", i, c, c == NO_ERROR ? alias : L"");
    c = ConvertInterfaceLuidToAlias(&luid, alias, 2);
    printf("if2.%u.luidToAliasShort=%lu\n", i, c);
  }
  FreeMibTable(table);
}

static void forward_table2(void) {
  PMIB_IPFORWARD_TABLE2 table = NULL;
  DWORD r = GetIpForwardTable2(AF_UNSPEC, &table);
  printf("route.status=%lu\n", r);
  if (r != NO_ERROR) return;
  unsigned n = u32((BYTE *)table);
  printf("route.count=%u\n", n);
  for (unsigned i = 0; i < n; i++) {
    const BYTE *row = (const BYTE *)table + FWD_TABLE + (size_t)i * FWD_SIZE;
    char dest[64], hop[64];
    sockaddr_text(row + FWD_DEST, dest, sizeof dest);
    sockaddr_text(row + FWD_NEXT_HOP, hop, sizeof hop);
    printf("route.%u.destination=%s/%u\n", i, dest, row[FWD_PREFIX_LENGTH]);
    printf("route.%u.nextHop=%s\n", i, hop);
    printf("route.%u.index=%u\n", i, u32(row + FWD_INDEX));
    printf("route.%u.luid=%llu\n", i, u64(row + FWD_LUID));
    printf("route.%u.metric=%u\n", i, u32(row + FWD_METRIC));
    printf("route.%u.protocol=%u\n", i, u32(row + FWD_PROTOCOL));
    printf("route.%u.loopback=%u\n", i, row[FWD_LOOPBACK]);
  }
  FreeMibTable(table);
}

static volatile LONG g_notified = 0, g_notified_type = -1, g_row_null = -1;

static VOID WINAPI on_interface_change(PVOID context, PMIB_IPINTERFACE_ROW row, MIB_NOTIFICATION_TYPE type) {
  (void)context;
  g_notified_type = (LONG)type;
  g_row_null = row == NULL;
  InterlockedIncrement(&g_notified);
}

static void others(void) {
  /* GetBestRoute2 to an outside address: the default route and the source it would take */
  SOCKADDR_INET dest, source;
  MIB_IPFORWARD_ROW2 best;
  memset(&dest, 0, sizeof dest);
  dest.Ipv4.sin_family = AF_INET;
  inet_pton(AF_INET, "8.8.8.8", &dest.Ipv4.sin_addr);
  DWORD r = GetBestRoute2(NULL, 0, NULL, &dest, 0, &best, &source);
  char text[64] = "";
  if (r == NO_ERROR) inet_ntop(AF_INET, &source.Ipv4.sin_addr, text, sizeof text);
  printf("best.status=%lu\n", r);
  printf("best.index=%lu\n", r == NO_ERROR ? best.InterfaceIndex : 0);
  printf("best.source=%s\n", text);
  r = GetBestRoute2(NULL, 0, NULL, NULL, 0, &best, &source);
  printf("best.nullDestination=%lu\n", r);
  /* unknown interfaces */
  MIB_IF_ROW2 row;
  memset(&row, 0, sizeof row);
  row.InterfaceIndex = 9999;
  printf("ifEntry2.unknown=%lu\n", GetIfEntry2(&row));
  NET_LUID luid;
  printf("indexToLuid.unknown=%lu\n", ConvertInterfaceIndexToLuid(9999, &luid));
  luid.Value = 12345;
  NET_IFINDEX index;
  printf("luidToIndex.unknown=%lu\n", ConvertInterfaceLuidToIndex(&luid, &index));
  /* GetAdaptersAddresses: a bad family, then the size probe */
  ULONG size = 0;
  printf("gaa.badFamily=%lu\n", GetAdaptersAddresses(99, 0, NULL, NULL, &size));
  printf("gaa.probe=%lu\n", GetAdaptersAddresses(AF_UNSPEC, 0, NULL, NULL, &size));
  /* a notification registration: the initial notification only */
  HANDLE h = NULL;
  r = NotifyIpInterfaceChange(AF_UNSPEC, on_interface_change, NULL, TRUE, &h);
  printf("notify.status=%lu\n", r);
  for (int i = 0; i < 200 && g_notified == 0; i++) Sleep(10);
  Sleep(100); /* a second (change) notification would come now */
  printf("notify.calls=%ld\n", g_notified);
  printf("notify.type=%ld\n", g_notified_type);
  printf("notify.rowNull=%ld\n", g_row_null);
  printf("notify.cancel=%lu\n", r == NO_ERROR ? CancelMibChangeNotify2(h) : 0);
  printf("notify.cancelNull=%lu\n", CancelMibChangeNotify2(NULL));
}

/*
 * `iplayout.exe exports`: every export name on stdin (one a line) looked up with GetProcAddress in
 * the iphlpapi.dll a program loads, and the module each resolves into; then a call of a forwarded
 * one (GetNetworkParams) to show Wine's implementation answers it.
 */
static int exports(void) {
  HMODULE m = LoadLibraryExW(L"iphlpapi.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  char line[256];
  int found = 0, missing = 0;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0]) continue;
    FARPROC p = GetProcAddress(m, line);
    if (!p) {
      printf("missing=%s\n", line);
      missing++;
      continue;
    }
    found++;
    HMODULE owner = NULL;
    char path[MAX_PATH] = "";
    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (LPCSTR)(void *)p, &owner);
    GetModuleFileNameA(owner, path, sizeof path);
    const char *base = strrchr(path, '\\');
    printf("module.%s=%s\n", line, base ? base + 1 : path);
  }
  printf("found=%d\nmissing=%d\n", found, missing);
  ULONG size = 0;
  printf("GetNetworkParams=%lu\n", GetNetworkParams(NULL, &size));
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "exports") == 0) return exports();
  int only_data = argc > 1 && strcmp(argv[1], "data") == 0;
  if (!only_data) layouts();
  adapters_info();
  if_table2();
  forward_table2();
  others();
  return 0;
}
