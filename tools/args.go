package tools

import (
	"context"
	"errors"
	"io/fs"
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

// configFilePath resolves a config_file argument (relative paths from the
// project root when one is in force, registry.ResolveReadPath) and checks
// it is a readable file.
func configFilePath(ctx context.Context, given string) (string, error) {
	if err := requireConfigPath("config_file", given); err != nil {
		return "", err
	}
	path, err := registry.ResolveReadPath(ctx, given)
	if err != nil {
		return "", err
	}
	return path, checkConfigFile(given, path)
}

// checkConfigFile checks the resolved path of a config file the caller
// named given (not blank: its callers check that first, with the name of
// their own argument).
func checkConfigFile(given, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return envelope.NotFound("config file not found: %s", given).WithDetails("config_file", given, "resolved_path", path).
				WithRemedy("check the path (relative paths are taken from the project root when one is set), or write a config.json for the DAG", "config.template", "config.requirements")
		}
		return envelope.InvalidInput("cannot read config file %s: %v", given, err).WithDetails("config_file", given, "resolved_path", path)
	}
	if st.IsDir() {
		return envelope.InvalidInput("config_file %s is a directory", given).WithDetails("config_file", given, "resolved_path", path)
	}
	return nil
}

// requireConfigPath answers a blank config.json path argument (arg names
// it: config_file) with invalid_input.
func requireConfigPath(arg, given string) error {
	if strings.TrimSpace(given) == "" {
		return envelope.InvalidInput("%s must not be blank", arg).WithRemedy("pass the path of the pipeline's config.json", "config.template")
	}
	return nil
}
