/*
 * Change notifications: NotifyIpInterfaceChange, NotifyUnicastIpAddressChange and NotifyRouteChange2
 * register a callback and return a handle; CancelMibChangeNotify2 takes it back. The simulator does
 * not push changes, so a registered callback is never told of one (docs/model.md, "Real binaries
 * under Wine"): a program that waits for a notification polls instead, or waits forever. The initial
 * notification the caller may ask for (InitialNotification TRUE: MibInitialNotification with no row,
 * from another thread, as the documentation describes) is delivered; it reports no change.
 *
 * A handle this DLL did not make (one of Wine's own registrations) is passed on to Wine's
 * CancelMibChangeNotify2.
 */
#include "view.h"

#include <stdlib.h>

typedef VOID(WINAPI *hn_mib_callback)(PVOID context, PVOID row, MIB_NOTIFICATION_TYPE type);

typedef struct hn_registration {
  struct hn_registration *next;
  hn_mib_callback callback;
  PVOID context;
  HANDLE thread; /* the initial notification's, or NULL */
  DWORD thread_id;
} hn_registration;

static CRITICAL_SECTION g_lock;
static hn_registration *g_live;

void hn_notify_attach(void) {
  InitializeCriticalSection(&g_lock);
}

void hn_notify_detach(int unloading) {
  if (!unloading) return;
  DeleteCriticalSection(&g_lock);
}

static DWORD WINAPI initial_notification(LPVOID arg) {
  hn_registration *r = arg;
  r->callback(r->context, NULL, MibInitialNotification);
  return 0;
}

static DWORD register_callback(ADDRESS_FAMILY Family, hn_mib_callback Callback, PVOID CallerContext,
                               BOOLEAN InitialNotification, HANDLE *NotificationHandle) {
  if (!Callback || !NotificationHandle || (Family != AF_UNSPEC && Family != AF_INET && Family != AF_INET6))
    return ERROR_INVALID_PARAMETER;
  hn_registration *r = calloc(1, sizeof *r);
  if (!r) return ERROR_NOT_ENOUGH_MEMORY;
  r->callback = Callback;
  r->context = CallerContext;
  EnterCriticalSection(&g_lock);
  r->next = g_live;
  g_live = r;
  if (InitialNotification) r->thread = CreateThread(NULL, 0, initial_notification, r, 0, &r->thread_id);
  LeaveCriticalSection(&g_lock);
  *NotificationHandle = (HANDLE)r;
  return NO_ERROR;
}

#define HN_WINE_OR_NODE(name, params, args)                    \
  do {                                                         \
    if (!hn_node_configured()) {                               \
      DWORD(WINAPI * fn) params = (void *)hn_wine_proc(#name); \
      return fn ? fn args : ERROR_NOT_SUPPORTED;               \
    }                                                          \
  } while (0)

DWORD WINAPI hn_NotifyIpInterfaceChange(ADDRESS_FAMILY Family, PIPINTERFACE_CHANGE_CALLBACK Callback,
                                        PVOID CallerContext, BOOLEAN InitialNotification,
                                        HANDLE *NotificationHandle) {
  HN_WINE_OR_NODE(NotifyIpInterfaceChange, (ADDRESS_FAMILY, PIPINTERFACE_CHANGE_CALLBACK, PVOID, BOOLEAN, HANDLE *),
                  (Family, Callback, CallerContext, InitialNotification, NotificationHandle));
  return register_callback(Family, (hn_mib_callback)(void *)Callback, CallerContext, InitialNotification,
                           NotificationHandle);
}

DWORD WINAPI hn_NotifyUnicastIpAddressChange(ADDRESS_FAMILY Family, PUNICAST_IPADDRESS_CHANGE_CALLBACK Callback,
                                             PVOID CallerContext, BOOLEAN InitialNotification,
                                             HANDLE *NotificationHandle) {
  HN_WINE_OR_NODE(NotifyUnicastIpAddressChange,
                  (ADDRESS_FAMILY, PUNICAST_IPADDRESS_CHANGE_CALLBACK, PVOID, BOOLEAN, HANDLE *),
                  (Family, Callback, CallerContext, InitialNotification, NotificationHandle));
  return register_callback(Family, (hn_mib_callback)(void *)Callback, CallerContext, InitialNotification,
                           NotificationHandle);
}

DWORD WINAPI hn_NotifyRouteChange2(ADDRESS_FAMILY Family, PIPFORWARD_CHANGE_CALLBACK Callback, PVOID CallerContext,
                                   BOOLEAN InitialNotification, HANDLE *NotificationHandle) {
  HN_WINE_OR_NODE(NotifyRouteChange2, (ADDRESS_FAMILY, PIPFORWARD_CHANGE_CALLBACK, PVOID, BOOLEAN, HANDLE *),
                  (Family, Callback, CallerContext, InitialNotification, NotificationHandle));
  return register_callback(Family, (hn_mib_callback)(void *)Callback, CallerContext, InitialNotification,
                           NotificationHandle);
}

/*
 * Take a registration back. Once this returns its callback is not running (the initial
 * notification is waited for, unless this is called from that callback) and is never called.
 */
DWORD WINAPI hn_CancelMibChangeNotify2(HANDLE NotificationHandle) {
  if (!NotificationHandle) return ERROR_INVALID_HANDLE;
  EnterCriticalSection(&g_lock);
  hn_registration **at = &g_live;
  while (*at && *at != (hn_registration *)NotificationHandle) at = &(*at)->next;
  hn_registration *r = *at;
  if (r) *at = r->next;
  LeaveCriticalSection(&g_lock);
  if (!r) {
    DWORD(WINAPI * fn)(HANDLE) = (void *)hn_wine_proc("CancelMibChangeNotify2");
    return fn ? fn(NotificationHandle) : ERROR_INVALID_HANDLE;
  }
  if (r->thread) {
    if (GetCurrentThreadId() != r->thread_id) WaitForSingleObject(r->thread, INFINITE);
    CloseHandle(r->thread);
  }
  free(r);
  return NO_ERROR;
}
