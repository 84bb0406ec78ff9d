package registry

// KeysOfExample and DecodeExampleArgs expose exampleKeys and the decoding it
// replaces to the tests of package registry_test.
//
// KeysOfExample is exampleKeys of an example's arguments.
func KeysOfExample(ex string) ([]string, bool) {
	_, rest := splitExample(ex)
	return exampleKeys(rest)
}

// DecodeExampleArgs decodes an example's arguments as parseExample does.
func DecodeExampleArgs(ex string) (map[string]any, error) {
	_, args, _, err := parseExample[any](ex)
	return args, err
}
