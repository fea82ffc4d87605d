// A Windows-built Go test of hnsim's computenetwork.dll and vmcompute.dll (issue 10), standard
// library only: the DLLs are bound as hcsshim's generated zsyscall_windows.go binds them — loaded
// from system32 only (windows.NewLazySystemDLL: LoadLibraryExW with LOAD_LIBRARY_SEARCH_SYSTEM32),
// procedures found by name, out-strings freed with CoTaskMemFree, HRESULTs reduced as
// interop.Win32FromHresult reduces them — and checked against values from the reference.
//
//	GOOS=windows go test -exec 'hnsim wine --' .
package wine

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

const loadLibrarySearchSystem32 = 0x00000800

var (
	kernel32          = syscall.NewLazyDLL("kernel32.dll")
	procLoadLibraryEx = kernel32.NewProc("LoadLibraryExW")
	ole32             = syscall.NewLazyDLL("ole32.dll")
	procCoTaskMemFree = ole32.NewProc("CoTaskMemFree")
)

// systemDLL loads a DLL from system32 only, as windows.NewLazySystemDLL does.
func systemDLL(t *testing.T, name string) syscall.Handle {
	t.Helper()
	p, _ := syscall.UTF16PtrFromString(name)
	h, _, err := procLoadLibraryEx.Call(uintptr(unsafe.Pointer(p)), 0, loadLibrarySearchSystem32)
	if h == 0 {
		t.Fatalf("LoadLibraryExW(%s, LOAD_LIBRARY_SEARCH_SYSTEM32): %v", name, err)
	}
	return syscall.Handle(h)
}

type dll struct {
	t *testing.T
	h syscall.Handle
}

// call runs an export by name and returns its HRESULT (as uint32).
func (d dll) call(name string, args ...uintptr) uint32 {
	d.t.Helper()
	p, err := syscall.GetProcAddress(d.h, name)
	if err != nil {
		d.t.Fatalf("GetProcAddress(%s): %v", name, err)
	}
	r, _, _ := syscall.SyscallN(p, args...)
	return uint32(r)
}

// take converts a returned UTF-16 string and frees it (interop.ConvertAndFreeCoTaskMemString).
func take(p *uint16) string {
	if p == nil {
		return ""
	}
	s := syscall.UTF16ToString((*[1 << 29]uint16)(unsafe.Pointer(p))[:])
	procCoTaskMemFree.Call(uintptr(unsafe.Pointer(p)))
	return s
}

func wstr(s string) uintptr {
	p, _ := syscall.UTF16PtrFromString(s)
	return uintptr(unsafe.Pointer(p))
}

// guid is hcsshim's guid.GUID layout.
type guid struct {
	Data1 uint32
	Data2 uint16
	Data3 uint16
	Data4 [8]byte
}

func parseGUID(t *testing.T, s string) guid {
	t.Helper()
	var g guid
	var d [8]uint32
	if _, err := fmt.Sscanf(strings.Trim(s, "{}"), "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		&g.Data1, &g.Data2, &g.Data3, &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7]); err != nil {
		t.Fatalf("GUID %q: %v", s, err)
	}
	for i := range d {
		g.Data4[i] = byte(d[i])
	}
	return g
}

// win32FromHresult is hcsshim's interop.Win32FromHresult.
func win32FromHresult(hr uint32) uint32 {
	if hr&0x1fff0000 == 0x00070000 {
		return hr & 0xffff
	}
	return hr
}

const defaultQuery = `{"SchemaVersion":{"Major":2,"Minor":0},"Flags":0}`

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
}

type errorRecord struct {
	Success   bool
	Error     string
	ErrorCode uint32
}

func TestNetworkLifecycle(t *testing.T) {
	hcn := dll{t, systemDLL(t, "computenetwork.dll")}
	name := unique("gotest-nat")
	settings := fmt.Sprintf(`{"Name":%q,"Type":"NAT","Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"192.168.77.0/24","Routes":[{"NextHop":"192.168.77.1","DestinationPrefix":"0.0.0.0/0"}]}]}],"SchemaVersion":{"Major":2,"Minor":0}}`, name)
	var zero guid
	var network uintptr
	var record, props *uint16
	if hr := hcn.call("HcnCreateNetwork", uintptr(unsafe.Pointer(&zero)), wstr(settings), uintptr(unsafe.Pointer(&network)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnCreateNetwork: 0x%08x %s", hr, take(record))
	}
	if r := take(record); r != "" {
		t.Fatalf("a success with an error record: %q (hcsshim's checkForErrors fails on it)", r)
	}
	if hr := hcn.call("HcnQueryNetworkProperties", network, wstr(defaultQuery), uintptr(unsafe.Pointer(&props)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnQueryNetworkProperties: 0x%08x %s", hr, take(record))
	}
	var doc struct {
		ID   string
		Name string
		Type string
	}
	if err := json.Unmarshal([]byte(take(props)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Name != name || doc.Type != "" {
		t.Fatalf("network document %+v: want Name %s and no Type (NAT is 0, omitted)", doc, name)
	}
	if hr := hcn.call("HcnCloseNetwork", network); hr != 0 {
		t.Fatalf("HcnCloseNetwork: 0x%08x", hr)
	}

	var ids *uint16
	query := fmt.Sprintf(`{"SchemaVersion":{"Major":2,"Minor":0},"Flags":0,"Filter":"{\"Name\":\"%s\"}"}`, name)
	if hr := hcn.call("HcnEnumerateNetworks", wstr(query), uintptr(unsafe.Pointer(&ids)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnEnumerateNetworks: 0x%08x", hr)
	}
	var list []string
	if err := json.Unmarshal([]byte(take(ids)), &list); err != nil || len(list) != 1 || !strings.EqualFold(list[0], doc.ID) {
		t.Fatalf("enumerate by name: %v %v, want [%s]", list, err, doc.ID)
	}

	id := parseGUID(t, doc.ID)
	if hr := hcn.call("HcnDeleteNetwork", uintptr(unsafe.Pointer(&id)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnDeleteNetwork: 0x%08x %s", hr, take(record))
	}
	// gone: HCN_E_NETWORK_NOT_FOUND, with HNS's ErrorRecord (hns-hcs.md §5.2)
	hr := hcn.call("HcnOpenNetwork", uintptr(unsafe.Pointer(&id)), uintptr(unsafe.Pointer(&network)), uintptr(unsafe.Pointer(&record)))
	if hr != 0x803b0001 {
		t.Fatalf("HcnOpenNetwork of a deleted network: 0x%08x, want 0x803b0001", hr)
	}
	var rec errorRecord
	if err := json.Unmarshal([]byte(take(record)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec != (errorRecord{false, "The network was not found. ", 0x803b0001}) {
		t.Fatalf("error record %+v", rec)
	}
}

func TestMissingNamespaceIsElementNotFound(t *testing.T) {
	hcn := dll{t, systemDLL(t, "computenetwork.dll")}
	id := parseGUID(t, "5f0b1190-63be-4e0c-b974-bd0f55675a42")
	var ns uintptr
	var record *uint16
	hr := hcn.call("HcnOpenNamespace", uintptr(unsafe.Pointer(&id)), uintptr(unsafe.Pointer(&ns)), uintptr(unsafe.Pointer(&record)))
	take(record)
	// hcsshim's IsElementNotFoundError: the reduced code is ERROR_NOT_FOUND (1168)
	if win32FromHresult(hr) != 1168 {
		t.Fatalf("HcnOpenNamespace of a missing namespace: 0x%08x, want 0x80070490", hr)
	}
	if syscall.Errno(win32FromHresult(hr)) != syscall.Errno(1168) {
		t.Fatal("not ERROR_NOT_FOUND")
	}
}

func TestEndpointAttachedToNamespace(t *testing.T) {
	hcn := dll{t, systemDLL(t, "computenetwork.dll")}
	var zero guid
	var network, endpoint, namespace uintptr
	var record, props *uint16
	must := func(what string, hr uint32) {
		t.Helper()
		if r := take(record); hr != 0 || r != "" {
			t.Fatalf("%s: 0x%08x %s", what, hr, r)
		}
		record = nil
	}
	netName := unique("gotest-ep")
	must("HcnCreateNetwork", hcn.call("HcnCreateNetwork", uintptr(unsafe.Pointer(&zero)), wstr(fmt.Sprintf(`{"Name":%q,"Type":"NAT","Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"192.168.78.0/24","Routes":[{"NextHop":"192.168.78.1","DestinationPrefix":"0.0.0.0/0"}]}]}],"SchemaVersion":{"Major":2,"Minor":0}}`, netName)), uintptr(unsafe.Pointer(&network)), uintptr(unsafe.Pointer(&record))))
	must("HcnCreateEndpoint", hcn.call("HcnCreateEndpoint", network, uintptr(unsafe.Pointer(&zero)), wstr(`{"Name":"pod","SchemaVersion":{"Major":2,"Minor":0}}`), uintptr(unsafe.Pointer(&endpoint)), uintptr(unsafe.Pointer(&record))))
	must("HcnQueryEndpointProperties", hcn.call("HcnQueryEndpointProperties", endpoint, wstr(defaultQuery), uintptr(unsafe.Pointer(&props)), uintptr(unsafe.Pointer(&record))))
	var ep struct {
		ID               string
		IpConfigurations []struct{ IpAddress string }
	}
	if err := json.Unmarshal([]byte(take(props)), &ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.IpConfigurations) != 1 || !strings.HasPrefix(ep.IpConfigurations[0].IpAddress, "192.168.78.") {
		t.Fatalf("endpoint addresses %+v", ep.IpConfigurations)
	}
	must("HcnCreateNamespace", hcn.call("HcnCreateNamespace", uintptr(unsafe.Pointer(&zero)), wstr(`{"Type":"Host","SchemaVersion":{"Major":2,"Minor":0}}`), uintptr(unsafe.Pointer(&namespace)), uintptr(unsafe.Pointer(&record))))
	must("HcnModifyNamespace", hcn.call("HcnModifyNamespace", namespace, wstr(fmt.Sprintf(`{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":%q}}`, ep.ID)), uintptr(unsafe.Pointer(&record))))
	must("HcnQueryNamespaceProperties", hcn.call("HcnQueryNamespaceProperties", namespace, wstr(defaultQuery), uintptr(unsafe.Pointer(&props)), uintptr(unsafe.Pointer(&record))))
	var ns struct {
		Resources []struct {
			Type string
			Data struct{ ID string }
		}
	}
	if err := json.Unmarshal([]byte(take(props)), &ns); err != nil {
		t.Fatal(err)
	}
	// hcsshim's GetNamespaceEndpointIds reads Resources[Type=="Endpoint"].Data.ID
	if len(ns.Resources) != 1 || ns.Resources[0].Type != "Endpoint" || !strings.EqualFold(ns.Resources[0].Data.ID, ep.ID) {
		t.Fatalf("namespace resources %+v, want the endpoint %s", ns.Resources, ep.ID)
	}
	for _, h := range []struct {
		fn string
		h  uintptr
	}{{"HcnCloseNamespace", namespace}, {"HcnCloseEndpoint", endpoint}, {"HcnCloseNetwork", network}} {
		if hr := hcn.call(h.fn, h.h); hr != 0 {
			t.Fatalf("%s: 0x%08x", h.fn, hr)
		}
	}
	// a closed handle: E_HANDLE
	if hr := hcn.call("HcnCloseNetwork", network); hr != 0x80070006 {
		t.Fatalf("HcnCloseNetwork twice: 0x%08x, want 0x80070006", hr)
	}
}

func TestVmcompute(t *testing.T) {
	vm := dll{t, systemDLL(t, "vmcompute.dll")}
	var response *uint16
	if hr := vm.call("HNSCall", wstr("GET"), wstr("/globals/version"), wstr(""), uintptr(unsafe.Pointer(&response))); hr != 0 {
		t.Fatalf("HNSCall: 0x%08x", hr)
	}
	var v struct {
		Success bool
		Output  struct{ Major, Minor int }
	}
	if err := json.Unmarshal([]byte(take(response)), &v); err != nil || !v.Success || v.Output.Major < 9 {
		t.Fatalf("HNSCall GET /globals/version: %+v %v", v, err)
	}
	var system uintptr
	var result *uint16
	hr := vm.call("HcsOpenComputeSystem", wstr(unique("nobody")), uintptr(unsafe.Pointer(&system)), uintptr(unsafe.Pointer(&result)))
	// vmcompute's spelling (hcs-lifecycle.md §0): ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND, and a ResultError
	if hr != 0xc037010e || system != 0 {
		t.Fatalf("HcsOpenComputeSystem of a missing system: 0x%08x handle %d", hr, system)
	}
	var doc struct {
		Error        int32
		ErrorMessage string
	}
	if err := json.Unmarshal([]byte(take(result)), &doc); err != nil || uint32(doc.Error) != 0xc037010e {
		t.Fatalf("result document %+v %v", doc, err)
	}
}
