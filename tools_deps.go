//go:build tools

// Package cursus: this file pins the module dependencies while the packages that use them are written.
package cursus

import (
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/service/s3"
	_ "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	_ "github.com/invopop/jsonschema"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/urfave/cli/v2"
	_ "github.com/xeipuuv/gojsonschema"
	_ "go.yaml.in/yaml/v3"
)
