/*
 * winver.exe: the Windows version a program sees, one `key=value` line each (test/wine/winver.test.ts,
 * issue 15) — what hcsshim's osversion reads (RtlGetVersion), what Go's runtime reads
 * (RtlGetNtVersionNumbers), GetVersionExW (an unmanifested program: Windows answers 6.2.9200 from
 * Windows 8.1 on), and the registry values scripts and `ver`-style code read.
 */
#include <windows.h>
#include <stdio.h>

typedef LONG(WINAPI *RtlGetVersion_fn)(OSVERSIONINFOEXW *);
typedef void(WINAPI *RtlGetNtVersionNumbers_fn)(DWORD *, DWORD *, DWORD *);

static void print_value(const char *root_name, HKEY root, const char *key, const char *name) {
  HKEY h;
  if (RegOpenKeyExA(root, key, 0, KEY_READ, &h) != ERROR_SUCCESS) {
    printf("%s.%s=<no key>\n", root_name, name);
    return;
  }
  BYTE data[512];
  DWORD type = 0, size = sizeof data - 2;
  LONG r = RegQueryValueExA(h, name, NULL, &type, data, &size);
  if (r != ERROR_SUCCESS) printf("%s.%s=<none>\n", root_name, name);
  else if (type == REG_DWORD) printf("%s.%s=%lu\n", root_name, name, *(DWORD *)data);
  else if (type == REG_SZ) {
    data[size] = 0;
    printf("%s.%s=%s\n", root_name, name, (char *)data);
  } else printf("%s.%s=<type %lu>\n", root_name, name, type);
  RegCloseKey(h);
}

int main(void) {
  HMODULE ntdll = GetModuleHandleA("ntdll.dll");
  RtlGetVersion_fn rtl = (RtlGetVersion_fn)(void *)GetProcAddress(ntdll, "RtlGetVersion");
  RtlGetNtVersionNumbers_fn numbers = (RtlGetNtVersionNumbers_fn)(void *)GetProcAddress(ntdll, "RtlGetNtVersionNumbers");
  OSVERSIONINFOEXW v;
  ZeroMemory(&v, sizeof v);
  v.dwOSVersionInfoSize = sizeof v;
  LONG status = rtl ? rtl(&v) : -1;
  printf("RtlGetVersion.status=%ld\n", status);
  printf("RtlGetVersion=%lu.%lu.%lu\n", v.dwMajorVersion, v.dwMinorVersion, v.dwBuildNumber);
  printf("RtlGetVersion.platform=%lu\n", v.dwPlatformId);
  printf("RtlGetVersion.productType=%u\n", v.wProductType);
  printf("RtlGetVersion.csd=%ls\n", v.szCSDVersion);
  DWORD major = 0, minor = 0, build = 0;
  if (numbers) numbers(&major, &minor, &build);
  printf("RtlGetNtVersionNumbers=%lu.%lu.%lu\n", major, minor, build & 0xFFFF);
  OSVERSIONINFOEXW g;
  ZeroMemory(&g, sizeof g);
  g.dwOSVersionInfoSize = sizeof g;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  GetVersionExW((OSVERSIONINFOW *)&g);
#pragma GCC diagnostic pop
  printf("GetVersionEx=%lu.%lu.%lu\n", g.dwMajorVersion, g.dwMinorVersion, g.dwBuildNumber);
  const char *cv = "Software\\Microsoft\\Windows NT\\CurrentVersion";
  const char *names[] = {"CurrentVersion", "CurrentMajorVersionNumber", "CurrentMinorVersionNumber", "CurrentBuild",
                         "CurrentBuildNumber", "UBR", "ProductName", "EditionID", "InstallationType", "ReleaseId",
                         "DisplayVersion", "CSDVersion"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) print_value("HKLM", HKEY_LOCAL_MACHINE, cv, names[i]);
  print_value("HKLM", HKEY_LOCAL_MACHINE, "System\\CurrentControlSet\\Control\\ProductOptions", "ProductType");
  print_value("HKCU", HKEY_CURRENT_USER, "Software\\Wine", "Version");
  return 0;
}
