// Package runs owns the run folder: runs/<id>/ under a project root, the
// pattern a run id must match, and ErrNotFound. The guided stages (package
// stages) and the workflows (package workflow) keep their state in the same
// folder, each in a file of its own (run.json, workflow.json), so a guided
// session can continue a workflow's run and the other way round.
package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/safefs"
)

// Dir is the folder, under the project root, that holds the run folders.
const Dir = "runs"

// ErrNotFound: no run folder (or no run state in it) has the id.
var ErrNotFound = errors.New("run not found")

// IDError is a run id that cannot name a folder.
type IDError struct {
	// ID is the id as given.
	ID string
	// Reason says what a run id must be.
	Reason string
}

// Error says why.
func (e *IDError) Error() string { return fmt.Sprintf("invalid run id %q: %s", e.ID, e.Reason) }

var idRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckID reports whether id can name a run folder: 1-64 letters, digits,
// '.', '_' or '-', starting with a letter or digit, and not containing
// "..". A bad id is an *IDError.
func CheckID(id string) error {
	if !idRE().MatchString(id) {
		return &IDError{ID: id, Reason: "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"}
	}
	if strings.Contains(id, "..") {
		return &IDError{ID: id, Reason: "must not contain '..'"}
	}
	return nil
}

// Join returns the folder of run id under root, as given (no check of the
// id, no conversion of root): filepath.Join(root, Dir, id).
func Join(root, id string) string { return filepath.Join(root, Dir, id) }

// Path returns the absolute folder of run id under root, checking the id;
// a relative root is taken as fsys takes it (nil: the trusted layer).
func Path(fsys *safefs.FS, root, id string) (string, error) {
	if err := CheckID(id); err != nil {
		return "", err
	}
	abs, err := fsys.Abs(root)
	if err != nil {
		return "", err
	}
	return Join(abs, id), nil
}

// List returns the ids of the run folders under root, sorted; none (an
// empty, non-nil list) when root has no runs folder.
func List(fsys *safefs.FS, root string) ([]string, error) {
	abs, err := fsys.Abs(root)
	if err != nil {
		return nil, err
	}
	ents, err := fsys.ReadDir(filepath.Join(abs, Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, e := range ents {
		if e.IsDir() && CheckID(e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
