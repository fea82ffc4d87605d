/*
 * The entry point every replacement DLL shares. Only set-up runs here (critical sections): the
 * connection to the simulator opens on the first call, never under the loader lock.
 */
#include "hnsim.h"

static HINSTANCE g_self;

HINSTANCE hn_self(void) {
  return g_self;
}

BOOL WINAPI DllMain(HINSTANCE self, DWORD reason, LPVOID reserved) {
  switch (reason) {
  case DLL_PROCESS_ATTACH:
    g_self = self;
    DisableThreadLibraryCalls(self);
    hn_rpc_init();
    hn_handles_init();
    hn_watch_init();
    hn_module_attach();
    break;
  case DLL_PROCESS_DETACH: {
    /* reserved is NULL for FreeLibrary; at process exit other threads are gone mid-way: touch nothing */
    int unloading = reserved == NULL;
    hn_module_detach(unloading);
    hn_watch_fini(unloading);
    hn_handles_fini(unloading);
    hn_rpc_fini(unloading);
    break;
  }
  default:
    break;
  }
  return TRUE;
}
