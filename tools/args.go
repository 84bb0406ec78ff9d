package tools

import (
	"context"
	"os"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// resolveDirs resolves the entries of a list-of-directories argument named
// field, one after the other: a blank entry is invalid_input, a relative
// one is taken from the project root when one is in force
// (registry.ResolveReadPath) and, with mustExist, an entry that is not an
// existing directory is not_found.
func resolveDirs(ctx context.Context, field string, dirs []string, mustExist bool) ([]string, error) {
	var out []string
	for _, d := range dirs {
		if strings.TrimSpace(d) == "" {
			return nil, envelope.InvalidInput("%s entries must be non-empty paths", field).WithDetails(field, dirs)
		}
		p, err := registry.ResolveReadPath(ctx, d)
		if err != nil {
			return nil, err
		}
		if mustExist {
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				return nil, envelope.NotFound("%s: %s is not an existing directory", field, d).WithDetails(field, dirs, "path", p).
					WithRemedy("pass directories that exist (relative paths are taken from the project root)", "project.init")
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// existingDirs resolves a list-of-directories argument whose entries must
// be existing directories (resolveDirs with mustExist).
func existingDirs(ctx context.Context, field string, dirs []string) ([]string, error) {
	return resolveDirs(ctx, field, dirs, true)
}
