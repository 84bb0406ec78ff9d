package stages

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cursus-go/cursus/internal/lazyre"
)

//go:embed hosts.yaml
var embeddedHosts []byte

// Host is a host's model binding: per tier, the literal value a dispatch
// of a stage worker passes on that host (the second layer of the model
// hints; the tier is the first).
type Host struct {
	// Name identifies the host ("claude-code").
	Name string `yaml:"name" json:"name"`
	// Description says how the host dispatches a worker and what to do
	// when a value is unavailable.
	Description string `yaml:"description" json:"description"`
	// Parameter is the dispatch parameter the value goes in ("model").
	Parameter string `yaml:"parameter" json:"parameter"`
	// Models maps each tier to the host's value for it.
	Models map[Tier]string `yaml:"models" json:"models"`
}

// ModelHint is the host layer of one stage's model hint.
type ModelHint struct {
	// Tier is the stage's tier (the first layer).
	Tier Tier `json:"tier"`
	// Host is the host named by the caller.
	Host string `json:"host"`
	// Parameter and Value are what the host's dispatch passes.
	Parameter string `json:"parameter"`
	Value     string `json:"value"`
	// Note is the host's description.
	Note string `json:"note"`
}

var (
	hostsOnce sync.Once
	hosts     map[string]*Host
	hostsErr  error
	hostRE    = lazyre.New(`^[a-z][a-z0-9-]*$`)
)

// Hosts returns the embedded host bindings, by name, loaded and checked
// once.
func Hosts() (map[string]*Host, error) {
	hostsOnce.Do(func() { hosts, hostsErr = parseHosts(embeddedHosts) })
	return hosts, hostsErr
}

// HostNames lists the hosts that have a binding, sorted.
func HostNames() []string {
	hs, _ := Hosts()
	out := make([]string, 0, len(hs))
	for n := range hs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func parseHosts(data []byte) (map[string]*Host, error) {
	var f struct {
		Hosts []*Host `yaml:"hosts"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("hosts.yaml: %w", err)
	}
	out := map[string]*Host{}
	for i, h := range f.Hosts {
		switch {
		case !hostRE().MatchString(h.Name):
			return nil, fmt.Errorf("hosts.yaml: host %d: name %q must be lower-case words joined by '-'", i, h.Name)
		case out[h.Name] != nil:
			return nil, fmt.Errorf("hosts.yaml: host %s twice", h.Name)
		case h.Description == "" || h.Parameter == "":
			return nil, fmt.Errorf("hosts.yaml: host %s: description and parameter are required", h.Name)
		}
		for _, t := range []Tier{TierStrong, TierFast} {
			if h.Models[t] == "" {
				return nil, fmt.Errorf("hosts.yaml: host %s maps no model for tier %s", h.Name, t)
			}
		}
		if len(h.Models) != 2 {
			return nil, fmt.Errorf("hosts.yaml: host %s: models maps exactly the tiers %s and %s", h.Name, TierStrong, TierFast)
		}
		out[h.Name] = h
	}
	return out, nil
}

// HintFor is the host layer of the model hint of a stage of tier t on the
// named host, false when the host has no binding.
func HintFor(host string, t Tier) (ModelHint, bool) {
	hs, err := Hosts()
	if err != nil {
		return ModelHint{}, false
	}
	h, ok := hs[host]
	if !ok {
		return ModelHint{}, false
	}
	return ModelHint{Tier: t, Host: h.Name, Parameter: h.Parameter, Value: h.Models[t], Note: h.Description}, true
}
