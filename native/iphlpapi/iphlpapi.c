/*
 * iphlpapi.dll for hnsim (issue 15): the IP Helper API answered from the simulated node, so that a
 * program under Wine sees the node's adapters (`Ethernet`, `vEthernet (Ethernet)`, `vEthernet
 * (nat)`, host-attached endpoints' vNICs) and routes instead of Linux's. What Go's net package and
 * golang.org/x/sys/windows call is answered here (adapters.c, mib.c, routes.c, notify.c); every
 * other export of Wine's own iphlpapi.dll is a forwarder to it (the link step generates them from
 * its export table, src/wine/build.ts), and Wine's copy lives in system32 as iphlpapi_wine.dll.
 *
 * A process without HNSIM_ENDPOINT talks to no node: every export then passes the call on to Wine's
 * own implementation. With HNSIM_ENDPOINT set and the simulator unreachable, the answered exports
 * fail with RPC_S_SERVER_UNAVAILABLE (1722), as the other DLLs do.
 */
#include "view.h"

const unsigned hn_handle_tag = 4;

void hn_notify_attach(void);
void hn_notify_detach(int unloading);

void hn_module_attach(void) {
  hn_notify_attach();
}

void hn_module_detach(int unloading) {
  hn_notify_detach(unloading);
}
