// Package jsonpos puts a position on JSON errors: "line 3, column 14
// (byte 41)", so whoever wrote the bad JSON (a person or a model) can find
// it. The registry uses it for tool arguments, the CLI for `mcp call`
// arguments, and the DAG and config readers for their files.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Error is a JSON error with the place in the input where it happened.
type Error struct {
	Line   int   // 1-based
	Column int   // 1-based, in bytes
	Offset int64 // bytes read before the error
	Err    error
}

// Error renders "line L, column C (byte O): <cause>".
func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d (byte %d): %v", e.Line, e.Column, e.Offset, e.Err)
}

// Unwrap returns the underlying JSON error.
func (e *Error) Unwrap() error { return e.Err }

// Locate returns err with its position in data when err is a JSON syntax
// or type error (it carries the offset) or a premature end of the input;
// any other error, or nil, is returned as it is.
func Locate(data []byte, err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		off = int64(len(data))
		err = errors.New("unexpected end of JSON input")
	}
	if off < 0 {
		return err
	}
	line, col := Position(data, off)
	return &Error{Line: line, Column: col, Offset: off, Err: err}
}

// Position turns a byte offset of data into a 1-based line and column. The
// offset of a syntax error is the number of bytes read, so it points just
// past the offending byte: the column is that byte's.
func Position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 1 {
		return 1, 1
	}
	before := data[:offset-1] // up to, not including, the last byte read
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Unmarshal is json.Unmarshal with the error located (Locate).
func Unmarshal(data []byte, v any) error {
	return Locate(data, json.Unmarshal(data, v))
}
