// The node's interfaces as Go's net package sees them through hnsim's iphlpapi.dll (issue 15):
// net.Interfaces, net.InterfaceByName and Interface.Addrs follow the node as an L2Bridge network,
// created and deleted through computenetwork.dll the way hcsshim calls it, moves the host's address
// from its physical adapter `Ethernet` to the external vSwitch's host vNIC `vEthernet (Ethernet)`
// and back (the names Windows gives them; reference vfp-dataplane.md §5–§6).
package wine

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"unsafe"
)

// ipv4Of is the interface's IPv4 address with its prefix, or "".
func ipv4Of(t *testing.T, ifi *net.Interface) string {
	t.Helper()
	addrs, err := ifi.Addrs()
	if err != nil {
		t.Fatalf("%s.Addrs(): %v", ifi.Name, err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.String()
		}
	}
	return ""
}

func names(t *testing.T) []string {
	t.Helper()
	list, err := net.Interfaces()
	if err != nil {
		t.Fatalf("net.Interfaces(): %v", err)
	}
	var out []string
	for _, i := range list {
		out = append(out, i.Name)
	}
	return out
}

func TestInterfacesFollowTheNode(t *testing.T) {
	// before: the physical adapter holds the host's address, and there is no vEthernet
	eth, err := net.InterfaceByName("Ethernet")
	if err != nil {
		t.Fatalf("net.InterfaceByName(Ethernet): %v (interfaces %q)", err, names(t))
	}
	address := ipv4Of(t, eth)
	if address == "" || eth.MTU != 1500 || len(eth.HardwareAddr) != 6 || eth.Flags&net.FlagUp == 0 {
		t.Fatalf("Ethernet: address %q MTU %d MAC %s flags %s", address, eth.MTU, eth.HardwareAddr, eth.Flags)
	}
	if _, err := net.InterfaceByName("vEthernet (Ethernet)"); err == nil {
		t.Fatal("vEthernet (Ethernet) before any external network")
	}
	lo, err := net.InterfaceByName("Loopback Pseudo-Interface 1")
	if err != nil || lo.Flags&net.FlagLoopback == 0 || lo.MTU != -1 || ipv4Of(t, lo) != "127.0.0.1/8" {
		t.Fatalf("the loopback pseudo-interface: %+v %v", lo, err)
	}

	hcn := dll{t, systemDLL(t, "computenetwork.dll")}
	var zero guid
	var network uintptr
	var record *uint16
	name := unique("gotest-l2bridge")
	settings := fmt.Sprintf(`{"Name":%q,"Type":"L2Bridge","Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"10.244.7.0/24","Routes":[{"NextHop":"10.244.7.1","DestinationPrefix":"0.0.0.0/0"}]}]}],"SchemaVersion":{"Major":2,"Minor":0}}`, name)
	if hr := hcn.call("HcnCreateNetwork", uintptr(unsafe.Pointer(&zero)), wstr(settings), uintptr(unsafe.Pointer(&network)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnCreateNetwork: 0x%08x %s", hr, take(record))
	}
	var props *uint16
	if hr := hcn.call("HcnQueryNetworkProperties", network, wstr(defaultQuery), uintptr(unsafe.Pointer(&props)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnQueryNetworkProperties: 0x%08x", hr)
	}
	id := between(take(props), `"ID":"`, `"`)
	hcn.call("HcnCloseNetwork", network)

	// with the network: the host vNIC holds the address, MAC and MTU; the bound adapter is gone
	vnic, err := net.InterfaceByName("vEthernet (Ethernet)")
	if err != nil {
		t.Fatalf("net.InterfaceByName(vEthernet (Ethernet)): %v (interfaces %q)", err, names(t))
	}
	if got := ipv4Of(t, vnic); got != address || vnic.MTU != eth.MTU || vnic.HardwareAddr.String() != eth.HardwareAddr.String() {
		t.Fatalf("vEthernet (Ethernet): address %q MTU %d MAC %s, want %q %d %s", got, vnic.MTU, vnic.HardwareAddr, address, eth.MTU, eth.HardwareAddr)
	}
	if _, err := net.InterfaceByName("Ethernet"); err == nil {
		t.Fatalf("Ethernet is still listed while bound to the vSwitch (interfaces %q)", names(t))
	}

	// deleted: back as before
	nid := parseGUID(t, id)
	if hr := hcn.call("HcnDeleteNetwork", uintptr(unsafe.Pointer(&nid)), uintptr(unsafe.Pointer(&record))); hr != 0 {
		t.Fatalf("HcnDeleteNetwork: 0x%08x %s", hr, take(record))
	}
	again, err := net.InterfaceByName("Ethernet")
	if err != nil || ipv4Of(t, again) != address || again.Index != eth.Index {
		t.Fatalf("Ethernet after the delete: %+v %v, want %s at index %d", again, err, address, eth.Index)
	}
	for _, n := range names(t) {
		if n == "vEthernet (Ethernet)" {
			t.Fatalf("%s is still listed after the delete", n)
		}
	}
}

// between is the text after the first `from` up to the next `to`.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
