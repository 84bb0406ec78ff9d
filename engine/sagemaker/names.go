package sagemaker

import (
	"errors"
	"fmt"
)

// Limits of the CreatePipeline / UpdatePipeline API (SageMaker service model 2017-07-24).
const (
	// MaxDefinitionBytes is the largest PipelineDefinition accepted: the API allows 1,048,576
	// characters; counting bytes, which are never fewer, keeps a check conservative.
	MaxDefinitionBytes = 1 << 20
	// MaxPipelineNameLen is the longest pipeline name (and display name).
	MaxPipelineNameLen = 256
	// MaxDescriptionLen is the longest pipeline description.
	MaxDescriptionLen = 3072
	// MaxTags is the most tags one resource may carry.
	MaxTags = 50
)

// ValidatePipelineName reports whether name is a valid SageMaker pipeline name: 1-256 characters,
// letters, digits and hyphens, starting and ending with a letter or digit.
func ValidatePipelineName(name string) error {
	if name == "" {
		return errors.New("empty pipeline name")
	}
	if len(name) > MaxPipelineNameLen {
		return fmt.Errorf("pipeline name is %d characters, the limit is %d", len(name), MaxPipelineNameLen)
	}
	if !HasNameShape(name) {
		return fmt.Errorf("pipeline name %q must match [a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}: letters, digits and '-', starting and ending with a letter or digit", name)
	}
	return nil
}

// HasNameShape reports whether name follows the character rule SageMaker
// gives as [a-zA-Z0-9](-*[a-zA-Z0-9])* for pipeline and model package group
// names: letters, digits and hyphens, starting and ending with a letter or
// digit. Lengths are checked separately. (A regular expression with the
// API's {0,255} bound costs milliseconds to compile at every process start.)
func HasNameShape(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(name)-1) {
			return false
		}
	}
	return true
}
