package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/jsonpos"
	"github.com/cursus-go/cursus/internal/safefs"
)

// createdAtLayout is Python's datetime.now().isoformat() (local time, no zone).
const createdAtLayout = "2006-01-02T15:04:05.000000"

// serialized returns what config.json holds for a config:
// essential fields, non-null system fields, non-null derived values and the
// extra fields.
func (c *Config) serialized() map[string]any {
	out := make(map[string]any, len(c.Values)+len(c.Derived))
	for name, v := range c.Values {
		f, declared := c.Class.Field(name)
		if declared && f.Tier != catalog.TierEssential && v == nil {
			continue
		}
		out[name] = v
	}
	for name, v := range c.Derived {
		out[name] = v
	}
	return out
}

// File is the structure of a config.json (the format cursus (Python)
// writes too). Values
// are as written (numbers as json.Number when parsed).
type File struct {
	Configuration struct {
		Shared   map[string]any            `json:"shared"`
		Specific map[string]map[string]any `json:"specific"`
	} `json:"configuration"`
	Metadata struct {
		ConfigTypes  map[string]string   `json:"config_types"`
		CreatedAt    string              `json:"created_at"`
		FieldSources map[string][]string `json:"field_sources"`
	} `json:"metadata"`
}

// ToFile lays a set out in the config.json structure (File).
func (s *Set) ToFile() *File {
	return layout(s.configs, s.CreatedAt, false)
}

func layout(configs []*Config, createdAt string, skeleton bool) *File {
	f := &File{}
	shared := sharedFields(configs, skeleton)
	f.Configuration.Shared = shared
	f.Configuration.Specific = make(map[string]map[string]any, len(configs))
	f.Metadata.ConfigTypes = make(map[string]string, len(configs))
	f.Metadata.FieldSources = map[string][]string{}
	for _, c := range configs {
		key := string(c.Key)
		entry := map[string]any{ModelTypeKey: c.Class.Name}
		f.Metadata.FieldSources[ModelTypeKey] = append(f.Metadata.FieldSources[ModelTypeKey], key)
		ser := c.serialized()
		if skeleton {
			for name := range c.Derived {
				delete(ser, name)
			}
		}
		for _, name := range mapkeys.Sorted(ser) {
			f.Metadata.FieldSources[name] = append(f.Metadata.FieldSources[name], key)
			if _, isShared := shared[name]; isShared {
				continue
			}
			entry[name] = cloneValue(ser[name])
		}
		f.Configuration.Specific[key] = entry
		f.Metadata.ConfigTypes[key] = c.Class.Name
	}
	if createdAt == "" {
		createdAt = time.Now().Format(createdAtLayout)
	}
	f.Metadata.CreatedAt = createdAt
	return f
}

// Marshal encodes a set as config.json: sorted
// keys, two-space indent, floats in Python form.
func Marshal(s *Set) ([]byte, error) { return encodeFile(s.ToFile()) }

func encodeFile(f *File) ([]byte, error) {
	doc := f.Document()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode config.json: %w", err)
	}
	return buf.Bytes(), nil
}

// Document returns the file as a JSON-ready map ({"configuration":
// {"shared", "specific"}, "metadata": {...}}); floats are json.Number in
// Python form so integral floats keep their ".0".
func (f *File) Document() map[string]any {
	specific := make(map[string]any, len(f.Configuration.Specific))
	for k, v := range f.Configuration.Specific {
		specific[k] = toJSON(normalize(map[string]any(v)))
	}
	meta := map[string]any{
		"config_types": f.Metadata.ConfigTypes,
		"created_at":   f.Metadata.CreatedAt,
	}
	if f.Metadata.FieldSources != nil {
		meta["field_sources"] = f.Metadata.FieldSources
	}
	return map[string]any{
		"configuration": map[string]any{"shared": toJSON(normalize(f.Configuration.Shared)), "specific": specific},
		"metadata":      meta,
	}
}

// Save writes a set to path through fsys (nil: the trusted file-access
// layer), atomically and confined as fsys is.
func Save(fsys *safefs.FS, s *Set, path string) error {
	b, err := Marshal(s)
	if err != nil {
		return err
	}
	return fsys.WriteFile(path, b, 0o644)
}

// Load reads a config.json through fsys (nil: the trusted file-access
// layer; see Unmarshal). A file fsys cannot read (absent, outside its root,
// not a regular file, over the size cap of config files) fails with its
// *safefs.PathError; a missing file satisfies errors.Is(err, fs.ErrNotExist).
func Load(fsys *safefs.FS, schema *Schema, path string) (*Set, error) {
	b, err := fsys.ReadFile(path, safefs.KindConfig)
	if err != nil {
		return nil, err
	}
	s, err := Unmarshal(schema, b)
	if fe, ok := err.(*FormatError); ok {
		fe.Path = path
	}
	return s, err
}

// Unmarshal decodes a config.json written by Marshal or by cursus (Python).
//
// For each metadata.config_types entry (or, when config_types is absent,
// each specific entry's __model_type__), in key order, the shared fields the
// class declares are merged with specific[key] (specific wins), metadata keys
// are dropped, derived values are recomputed and the values are typed and
// validated. Both the wrapped form {"configuration": {...}, "metadata": {...}}
// and the direct form {"shared", "specific", "metadata"} are accepted.
//
// Errors: *FormatError (not JSON, wrong structure), *UnknownClassError
// (every unknown class listed; no set returned) or *ValidationError (every
// bad field; the set is returned as well so callers can still inspect it).
func Unmarshal(schema *Schema, data []byte) (*Set, error) {
	f, err := ParseFile(data)
	if err != nil {
		return nil, err
	}
	return schema.FromFile(f)
}

// ParseFile decodes the structure of a config.json (wrapped or direct form)
// without typing the values: shared, specific and metadata as written, with
// config_types taken from each specific entry's __model_type__ when the
// metadata has none. Errors are *FormatError.
func ParseFile(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, &FormatError{Msg: "not valid JSON", Err: jsonpos.Locate(data, err)}
	}
	if dec.More() {
		return nil, &FormatError{Msg: "not valid JSON", Err: jsonpos.Trailing(data, dec)}
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, &FormatError{Msg: fmt.Sprintf("the document is %s, not an object", jsonKind(normalize(root)))}
	}
	body := top
	if conf, ok := top["configuration"].(map[string]any); ok {
		body = conf
	}
	var meta map[string]any
	if m, present := top["metadata"]; present && m != nil {
		if meta, ok = m.(map[string]any); !ok {
			return nil, &FormatError{Msg: "metadata is not an object"}
		}
	}
	f := &File{}
	f.Configuration.Shared = map[string]any{}
	if v, present := body["shared"]; present && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &FormatError{Msg: "configuration.shared is not an object"}
		}
		f.Configuration.Shared = m
	}
	f.Configuration.Specific = map[string]map[string]any{}
	if v, present := body["specific"]; present && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &FormatError{Msg: "configuration.specific is not an object"}
		}
		for k, e := range m {
			em, ok := e.(map[string]any)
			if !ok {
				return nil, &FormatError{Msg: fmt.Sprintf("configuration.specific.%s is not an object", k)}
			}
			f.Configuration.Specific[k] = em
		}
	}
	f.Metadata.ConfigTypes = map[string]string{}
	if ct, present := meta["config_types"]; present && ct != nil {
		m, ok := ct.(map[string]any)
		if !ok {
			return nil, &FormatError{Msg: "metadata.config_types is not an object"}
		}
		for k, v := range m {
			name, ok := v.(string)
			if !ok {
				return nil, &FormatError{Msg: fmt.Sprintf("metadata.config_types.%s is not a string", k)}
			}
			f.Metadata.ConfigTypes[k] = name
		}
	} else {
		for k, e := range f.Configuration.Specific {
			name, ok := e[ModelTypeKey].(string)
			if !ok {
				return nil, &FormatError{Msg: fmt.Sprintf("no metadata.config_types and specific.%s has no %s", k, ModelTypeKey)}
			}
			f.Metadata.ConfigTypes[k] = name
		}
	}
	if len(f.Metadata.ConfigTypes) == 0 {
		return nil, &FormatError{Msg: "no configs: metadata.config_types and configuration.specific are empty"}
	}
	f.Metadata.CreatedAt, _ = meta["created_at"].(string)
	if fs, ok := meta["field_sources"].(map[string]any); ok {
		f.Metadata.FieldSources = map[string][]string{}
		for k, v := range fs {
			list, _ := v.([]any)
			for _, e := range list {
				if s, ok := e.(string); ok {
					f.Metadata.FieldSources[k] = append(f.Metadata.FieldSources[k], s)
				}
			}
		}
	}
	return f, nil
}

// FromFile types and validates the configs of a parsed config.json; see
// Unmarshal for the rules and errors.
func (sc *Schema) FromFile(f *File) (*Set, error) {
	shared, specific, types := f.Configuration.Shared, f.Configuration.Specific, f.Metadata.ConfigTypes
	var warnings []string
	for _, k := range mapkeys.Sorted(specific) {
		if _, listed := types[k]; !listed {
			warnings = append(warnings, fmt.Sprintf("specific.%s has no entry in metadata.config_types and is ignored", k))
		}
	}
	unknown := map[string]string{}
	for k, name := range types {
		if _, ok := sc.Class(name); !ok {
			unknown[k] = name
		}
	}
	if len(unknown) > 0 {
		return nil, &UnknownClassError{Classes: unknown, Available: sc.ClassNames()}
	}
	var configs []*Config
	var problems []FieldError
	used := map[string]bool{}
	for _, key := range mapkeys.Sorted(types) {
		class, _ := sc.Class(types[key])
		merged := make(map[string]any, len(shared)+len(specific[key]))
		own := class.legacyObjectKeys(specific[key]) // the entry's legacy hyperparameters win over shared values
		for name, v := range shared {
			if (class.HasField(name) && !own[name]) || PipelineKeys[name] {
				merged[name] = v
				used[name] = true
			}
		}
		if sharedHP := class.legacyObjectKeys(shared); sharedHP != nil {
			merged[LegacyHyperparametersKey] = mergeLegacy(shared[LegacyHyperparametersKey], specific[key][LegacyHyperparametersKey])
		}
		for name, v := range specific[key] {
			if name == LegacyHyperparametersKey && merged[name] != nil {
				continue
			}
			merged[name] = v
		}
		cfg, errs, warns := class.newConfig(catalog.ConfigKey(key), merged)
		configs = append(configs, cfg)
		problems = append(problems, errs...)
		warnings = append(warnings, warns...)
	}
	set, err := NewSet(configs...)
	if err != nil {
		return nil, err
	}
	set.MetadataConfigTypes = types
	set.CreatedAt = f.Metadata.CreatedAt
	for _, name := range mapkeys.Sorted(shared) {
		if !used[name] && !metaKeys[name] {
			set.IgnoredShared = append(set.IgnoredShared, name)
			warnings = append(warnings, fmt.Sprintf("shared.%s is not a field of any config class of the file and is ignored", name))
		}
	}
	set.Warnings = warnings
	if len(problems) > 0 {
		return set, &ValidationError{Errors: problems}
	}
	return set, nil
}
