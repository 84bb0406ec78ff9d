package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc64"
	"math"
	"strconv"
	"strings"
	"sync"

	_ "embed"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// The snapshot is a cache of the YAML decoding of the embedded files, not a
// second source of truth. yaml.v3 spends about three quarters of a catalog
// load tokenising YAML; decoding the same values from JSON is several times
// cheaper. loadEmbedded uses the snapshot only when its checksum equals the
// checksum of the embedded YAML bytes, so an edited step file is always
// read from its YAML (a stale snapshot costs speed, never correctness).
// Field sets, defaults and every validation run on load either way.
//
// Regenerate it after editing steps/ or fieldsets/ (go generate does the
// same):
//
//	go test ./engine/catalog -run TestSnapshotCurrent -args -update
//
// TestSnapshotCurrent fails while it is stale.

//go:generate go test . -run TestSnapshotCurrent -args -update

//go:embed snapshot.json
var snapshotJSON []byte

// snapshotVersion changes when the JSON form of the decode types changes.
const snapshotVersion = 2

type snapshot struct {
	FieldSets []snapFieldSet
	Steps     []snapStepEntry
}

type snapFieldSet struct {
	File string
	Set  *FieldSetFile
}

type snapStepEntry struct {
	File string
	Step json.RawMessage // decoded by the parse workers
}

// The file is line-oriented so that each entry is decoded (and its JSON
// scanned) exactly once, by the worker that builds it:
//
//	cursus-catalog-snapshot <version> <checksum>
//	F <field-set file> <FieldSetFile as JSON>
//	S <step file> <StepFile as JSON>
const snapshotMagic = "cursus-catalog-snapshot"

// crcTable is made on first use: making it (eight 2 KiB tables) at
// package initialisation cost every process, loading the catalog or not.
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// checksum summarises the embedded YAML files (names and bytes).
func checksum(setFiles, stepFiles []rawFile) string {
	h := crc64.New(crcTable())
	for _, group := range [][]rawFile{setFiles, stepFiles} {
		for _, f := range group {
			fmt.Fprintf(h, "%s\x00%d\x00", f.name, len(f.data))
			h.Write(f.data)
		}
		h.Write([]byte{0xff})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// currentSnapshot returns the embedded snapshot when it was made from
// exactly these files, else nil.
func currentSnapshot(setFiles, stepFiles []rawFile) *snapshot {
	data := snapshotJSON
	line := func() []byte {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			l := data
			data = nil
			return l
		}
		l := data[:i]
		data = data[i+1:]
		return l
	}
	head := strings.Fields(string(line()))
	if len(head) != 3 || head[0] != snapshotMagic || head[1] != strconv.Itoa(snapshotVersion) || head[2] != checksum(setFiles, stepFiles) {
		return nil
	}
	snap := &snapshot{}
	for len(data) > 0 {
		l := line()
		if len(l) == 0 {
			continue
		}
		kind, rest, ok1 := bytes.Cut(l, []byte{' '})
		file, js, ok2 := bytes.Cut(rest, []byte{' '})
		if !ok1 || !ok2 {
			return nil
		}
		switch string(kind) {
		case "F":
			var f FieldSetFile
			if err := json.Unmarshal(js, &f); err != nil {
				return nil
			}
			snap.FieldSets = append(snap.FieldSets, snapFieldSet{string(file), &f})
		case "S":
			snap.Steps = append(snap.Steps, snapStepEntry{string(file), js})
		default:
			return nil
		}
	}
	if len(snap.Steps) != len(stepFiles) || len(snap.FieldSets) != len(setFiles) {
		return nil
	}
	for i, s := range snap.Steps {
		if s.File != stepFiles[i].name {
			return nil
		}
	}
	for i, s := range snap.FieldSets {
		if s.File != setFiles[i].name {
			return nil
		}
	}
	return snap
}

// buildSnapshot decodes the YAML files and renders the snapshot. It fails
// on a file that does not decode (fix the file first).
func buildSnapshot(setFiles, stepFiles []rawFile) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %d %s\n", snapshotMagic, snapshotVersion, checksum(setFiles, stepFiles))
	prep := func(decls []FieldDecl) error {
		for i := range decls {
			if err := decls[i].toSnapshot(); err != nil {
				return err
			}
		}
		return nil
	}
	write := func(kind, file string, v any) error {
		if strings.ContainsAny(file, " \n") {
			return fmt.Errorf("%q: file names in the snapshot may not contain spaces", file)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		fmt.Fprintf(&buf, "%s %s ", kind, file)
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	}
	for _, r := range setFiles {
		var f FieldSetFile
		if err := decodeStrict(r.name, r.data, &f); err != nil {
			return nil, err
		}
		if err := prep(f.Fields); err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		if err := write("F", r.name, &f); err != nil {
			return nil, err
		}
	}
	for _, r := range stepFiles {
		var sf StepFile
		if err := decodeStrict(r.name, r.data, &sf); err != nil {
			return nil, err
		}
		if err := prep(sf.Fields); err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		if err := write("S", r.name, &sf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// writeTyped writes a decoded YAML value as JSON, floats always with a
// fraction or exponent and map keys sorted.
func writeTyped(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case int:
		b.WriteString(strconv.Itoa(t))
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("%v cannot be written as JSON", t)
		}
		s := strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case string:
		x, _ := json.Marshal(t)
		b.Write(x)
	case []any:
		b.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeTyped(b, x); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := mapkeys.Sorted(t)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			x, _ := json.Marshal(k)
			b.Write(x)
			b.WriteByte(':')
			if err := writeTyped(b, t[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("unsupported value %T", v)
	}
	return nil
}

// readTyped is the inverse of writeTyped: numbers with a fraction or
// exponent are float64, other numbers int.
func readTyped(raw []byte) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty value")
	}
	switch c := raw[0]; {
	case c == 'n' && string(raw) == "null":
		return nil, nil
	case c == 't' && string(raw) == "true":
		return true, nil
	case c == 'f' && string(raw) == "false":
		return false, nil
	case c == '"' && len(raw) >= 2 && raw[len(raw)-1] == '"' && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 && bytes.IndexByte(raw[1:len(raw)-1], '"') < 0:
		return string(raw[1 : len(raw)-1]), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return fromJSONNumber(json.Number(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return fromJSONNumber(v)
}

func fromJSONNumber(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			return strconv.ParseFloat(s, 64)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return int(n), err
	case []any:
		for i, x := range t {
			y, err := fromJSONNumber(x)
			if err != nil {
				return nil, err
			}
			t[i] = y
		}
	case map[string]any:
		for k, x := range t {
			y, err := fromJSONNumber(x)
			if err != nil {
				return nil, err
			}
			t[k] = y
		}
	}
	return v, nil
}
