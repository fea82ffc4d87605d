// gonet prints what Go's net package sees of the machine's network interfaces, as JSON on stdout:
// net.Interfaces() with each interface's Addrs(), net.InterfaceByName for every name given as an
// argument, and the interface holding each address given with -ip (as flannel's GetInterfaceByIP
// and win-overlay-style code look one up). Standard library only; built for GOOS=windows by the
// Wine suite (test/wine/iphlpapi.test.ts) and run under hnsim wine, where hnsim's iphlpapi.dll
// answers from the simulated node.
//
//	gonet.exe [-ip 10.0.0.4]… ["vEthernet (Ethernet)"]…
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
)

type iface struct {
	Index        int      `json:"index"`
	Name         string   `json:"name"`
	MTU          int      `json:"mtu"`
	HardwareAddr string   `json:"hardwareAddr"`
	Flags        string   `json:"flags"`
	Addrs        []string `json:"addrs"`
}

type lookup struct {
	Interface *iface `json:"interface,omitempty"`
	Error     string `json:"error,omitempty"`
}

type report struct {
	Interfaces []iface           `json:"interfaces"`
	Error      string            `json:"error,omitempty"`
	ByName     map[string]lookup `json:"byName"`
	ByIP       map[string]lookup `json:"byIP"`
}

type ips []string

func (l *ips) String() string     { return strings.Join(*l, ",") }
func (l *ips) Set(s string) error { *l = append(*l, s); return nil }

func describe(i net.Interface) iface {
	out := iface{Index: i.Index, Name: i.Name, MTU: i.MTU, HardwareAddr: i.HardwareAddr.String(), Flags: i.Flags.String(), Addrs: []string{}}
	addrs, err := i.Addrs()
	if err != nil {
		out.Addrs = append(out.Addrs, "error: "+err.Error())
		return out
	}
	for _, a := range addrs {
		out.Addrs = append(out.Addrs, a.String())
	}
	return out
}

// byIP finds the interface holding ip, as flannel's ip.GetInterfaceByIP walks net.Interfaces.
func byIP(ip net.IP) (*net.Interface, error) {
	list, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for i := range list {
		addrs, err := list[i].Addrs()
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return &list[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no interface with address %s", ip)
}

func main() {
	var want ips
	flag.Var(&want, "ip", "find the interface holding this address (repeatable)")
	flag.Parse()
	r := report{Interfaces: []iface{}, ByName: map[string]lookup{}, ByIP: map[string]lookup{}}
	list, err := net.Interfaces()
	if err != nil {
		r.Error = err.Error()
	}
	for _, i := range list {
		r.Interfaces = append(r.Interfaces, describe(i))
	}
	for _, name := range flag.Args() {
		i, err := net.InterfaceByName(name)
		if err != nil {
			r.ByName[name] = lookup{Error: err.Error()}
			continue
		}
		d := describe(*i)
		r.ByName[name] = lookup{Interface: &d}
	}
	for _, text := range want {
		i, err := byIP(net.ParseIP(text))
		if err != nil {
			r.ByIP[text] = lookup{Error: err.Error()}
			continue
		}
		d := describe(*i)
		r.ByIP[text] = lookup{Interface: &d}
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(r); err != nil {
		os.Exit(2)
	}
}
