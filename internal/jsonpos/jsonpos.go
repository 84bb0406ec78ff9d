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
	Offset int64 // 0-based index of the byte where the error is
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
	// encoding/json's offset counts the bytes read, the offending one
	// included: the error is at the last of them
	at := max(off-1, 0)
	line, col := Position(data, at)
	return &Error{Line: line, Column: col, Offset: at, Err: err}
}

// Position turns the 0-based index of a byte of data into its 1-based line
// and column; an index past the end is the last byte's.
func Position(data []byte, index int64) (line, col int) {
	index = min(index, int64(len(data))-1)
	if index < 0 {
		return 1, 1
	}
	before := data[:index]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Trailing is the error of data left after the first JSON value a decoder
// of data read: it points at the first byte of that data.
func Trailing(data []byte, dec *json.Decoder) error {
	off := dec.InputOffset()
	for off < int64(len(data)) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
		off++
	}
	line, col := Position(data, off)
	return &Error{Line: line, Column: col, Offset: off, Err: errors.New("data after the JSON document")}
}

// Unmarshal is json.Unmarshal with the error located (Locate).
func Unmarshal(data []byte, v any) error {
	return Locate(data, json.Unmarshal(data, v))
}
