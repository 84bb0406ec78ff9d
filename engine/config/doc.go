// Package config holds the typed configuration of a pipeline: the values of
// every step's config class, the config.json file that carries them, and the
// rules that pick a config for each DAG node.
//
// # Model
//
// A config class is what the step catalog declares for a step type: the
// shared "base" field set, the "processing" set for processing steps, and the
// step's own fields, each with a type, a tier (essential, system, derived), a
// default and constraints (allowed values, min/max, pattern). A [Schema]
// indexes those classes; it is built from the catalog ([FromCatalog],
// [Default]) or, in tests, from hand-built steps ([NewSchema]). Two abstract
// classes exist besides the step classes:
// BasePipelineConfig (step key "Base") and ProcessingStepConfigBase
// ("Processing").
//
// A [Config] is one step's values: user values and defaults (typed by the
// declarations), derived values computed from `derive:` templates (pipeline
// name, S3 locations, AWS region...), and extra fields the class does not
// declare, kept verbatim. A [Set] is the configs of one pipeline keyed by
// config key (`<Canonical>_<job_type>`, or `<Canonical>`).
//
// Validation never stops at the first problem: [ValidationError] lists every
// bad field with its path (`<config key>.<field>`, or `base.<field>` for a base
// field that is wrong for every step), a message and the allowed values.
//
// # config.json
//
// [Marshal] / [Unmarshal] ([Save] / [Load]) read and write config.json:
// `configuration.shared` (tier 1/2 fields
// whose value is identical and non-null in every config, when there are at
// least two), `configuration.specific` (per config key: `__model_type__` and
// every other serialized field, derived values included) and `metadata`
// (`config_types`, `field_sources`, `created_at`), sorted keys, two-space
// indent. It is the format cursus (Python) reads and writes: its files load
// here (the direct structure without the `configuration` wrapper too, and
// `__type_info__` wrappers are unwrapped), and files written here load
// there. Values -> file -> values is
// lossless. Writes are atomic.
//
// # Hyperparameters and the legacy object
//
// A training step's hyperparameters are typed fields
// (catalog.ConfigField.Hyperparameter; [Class.HyperparameterFields]).
// A config.json written before they were typed keeps them in a free-form
// "hyperparameters" object; it still loads ([Class.LiftsHyperparameters]):
// each key naming a field of the class becomes that field's value (the
// config's own legacy object wins over config.json's shared section and
// merge_save's base values, as its own top-level values would), a
// top-level value of the same field that differs is a [KindConflict]
// problem at <key>.hyperparameters.<field> naming both, serialisation
// markers (__model_type__) are dropped, and the keys that name no field
// stay in a hyperparameters object of their own, kept like any extra value
// and reported by [Config.UnknownKeys] as "hyperparameters.<key>". Every
// lift adds a deprecation warning; saving the config writes the lifted
// values as top-level fields.
//
// # Node -> config resolution
//
// [Set.Resolve] picks a config for each DAG node, trying in order:
// exact key; metadata.config_types naming a class (job type checked against
// the node's last `_` segment); case-insensitive key; a suffix-less node that
// names a step type with exactly one config of that type; then scored
// candidates (job-type keywords 0.7+0.3·similarity, semantic 0.7 gated by the
// step type, name patterns 0.6..0.9). A tie at the top score between
// different configs is an [AmbiguousNodeError] listing the candidates
// (where cursus (Python) silently takes the first) unless
// [ResolveOptions].FirstOnTie asks for the first. All unresolved nodes are reported together
// ([ResolutionError]); two nodes that would produce the same SageMaker step
// name are a [DuplicateStepNameError].
//
// # Derive templates
//
// Derived fields are rendered with the catalog's template syntax
// (catalog.ExpandDerivation): `{field}`, `{region|aws_region}` (NA->us-east-1,
// EU->eu-west-1, FE->us-west-2), `{a|or:b}`, `{flag|if:a:b}`, `|lower`,
// `|upper`, `{today}`. Derived fields may reference derived fields; a
// placeholder without value leaves the derived field null. A derived field
// declared without a template uses the built-in rule for its well-known
// name (aws_region, pipeline_name, pipeline_description, pipeline_s3_loc,
// effective_source_dir, effective_instance_type, script_path,
// hyperparameter_file). A system field with a template and no static default
// (current_date = "{today}", model_package_description =
// "{pipeline_description}") gets the rendered template as its default, which
// is then stored like any value.
//
// # Pipeline parameters
//
// A string, int or float field (catalog.FieldType.AcceptsParameterRef) may
// hold "{{Parameters.<name>}}" (catalog.ParameterRefPattern) instead of a
// value: the field's type, pattern, range and allowed values are not checked,
// because the value is chosen when the pipeline runs, and the compiler turns
// the reference into {"Get": "Parameters.<name>"} after checking a config
// declares the parameter in pipeline_parameters. A field that names the step
// (job_type, a name suffix) or that a derive template embeds in a name or
// text known at build time (region, author, bucket, ...) refuses a
// reference with KindParameter; [Class.ParameterRefBlocked] says why. The
// compiler refuses, naming the field, a reference where it needs the value
// itself (an entry point, a framework version, caching) or where SageMaker
// takes only a literal.
//
// # Placeholders and keys nothing reads
//
// [IsPlaceholder] is the engine's placeholder set (a replace-me marker in
// any spelling, a bare to-do word such as TODO, a <slot>);
// [Config.PlaceholderFields] lists a config's placeholders, an essential
// field left blank included. A key no class declares is kept as an extra
// field ([Config.Extras]) and [Class.ClosestField] names the field it
// probably means; a configuration.shared key no class of the file
// declares reaches no config and is listed in [Set.IgnoredShared].
// [PipelineKeys] (pipeline_parameters) are the exception: the compiler
// reads them from any config, and a shared one applies to every config.
// The compiler's readiness gate reports all of these as blockers.
//
// # Value types
//
// Values are typed by the declarations: string, int64, float64, bool, []any
// (list), map[string]any (map), any JSON value (any). Numbers inside lists,
// maps and extra fields are int64 when written without fraction or exponent,
// else float64; integral floats are written back with ".0".
package config
