//go:build !unix

package safefs

import "os"

const readFlags = os.O_RDONLY
