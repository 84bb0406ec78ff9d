package tools

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// resolveDirs resolves the entries of a list-of-directories argument named
// field, one after the other: a blank entry is invalid_input, a relative
// one is taken from the project root (registry.ResolveReadPath), one
// outside a confined caller's roots is invalid_input and, with mustExist,
// an entry that is not an existing directory (as the call's file-access
// layer sees it) is not_found.
func resolveDirs(ctx context.Context, field string, dirs []string, mustExist bool) ([]string, error) {
	var out []string
	fsys := safefs.From(ctx)
	for _, d := range dirs {
		if strings.TrimSpace(d) == "" {
			return nil, envelope.InvalidInput("%s entries must be non-empty paths", field).WithDetails(field, dirs)
		}
		p, err := fsys.Abs(d)
		if err != nil {
			return nil, registry.FileError(field, d, err)
		}
		if mustExist && !fsys.IsDir(p) {
			return nil, envelope.NotFound("%s: %s is not an existing directory", field, d).WithDetails(field, dirs).
				WithRemedy("pass directories that exist (relative paths are taken from the project root)", "project.init")
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
// project root, registry.ResolveReadPath) and checks it is a readable file.
func configFilePath(ctx context.Context, given string) (string, error) {
	return checkedConfigPath(ctx, "config_file", given)
}

// checkedConfigPath resolves a config.json path argument (arg names it:
// config_file, config_path) and checks it with checkedFile.
func checkedConfigPath(ctx context.Context, arg, given string) (string, error) {
	if err := requireConfigPath(arg, given); err != nil {
		return "", err
	}
	return checkedFile(ctx, arg, given, safefs.KindConfig,
		"check the path (relative paths are taken from the project root), or write a config.json for the DAG", "config.template", "config.requirements")
}

// checkedFile resolves a file path argument and checks, through the call's
// file-access layer, that it names a regular file within the cap of its
// kind, before any work is done: outside the roots, absent (remedy and
// tools then name the way out), a directory, a special file or too large
// are each a tool error naming the argument. It returns the absolute path.
func checkedFile(ctx context.Context, arg, given string, kind safefs.Kind, remedy string, tools ...string) (string, error) {
	fsys := safefs.From(ctx)
	path, err := fsys.Abs(given)
	if err != nil {
		return "", registry.FileError(arg, given, err)
	}
	st, err := fsys.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", envelope.NotFound("%s not found: %s", arg, given).WithDetails(arg, given).WithRemedy(remedy, tools...)
	case err != nil:
		return "", registry.FileError(arg, given, err)
	case st.IsDir():
		return "", envelope.InvalidInput("%s %s is a directory", arg, given).WithDetails(arg, given)
	case !st.Mode().IsRegular():
		return "", envelope.InvalidInput("%s %s is not a regular file", arg, given).WithDetails(arg, given)
	case st.Size() > fsys.Limit(kind):
		return "", registry.FileError(arg, given, &safefs.PathError{Op: "read", Path: given,
			Err: &safefs.TooLargeError{Kind: kind, Limit: fsys.Limit(kind), Size: st.Size()}})
	}
	return path, nil
}

// requireConfigPath answers a blank config.json path argument (arg names
// it: config_file) with invalid_input.
func requireConfigPath(arg, given string) error {
	if strings.TrimSpace(given) == "" {
		return envelope.InvalidInput("%s must not be blank", arg).WithRemedy("pass the path of the pipeline's config.json", "config.template")
	}
	return nil
}
