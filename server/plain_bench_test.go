package server

import "testing"

// BenchmarkPlainRequest: the frame filter's check of a typical tools/call
// line (plainRequest), which every request pays.
func BenchmarkPlainRequest(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"},"_meta":{"progressToken":7}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if !plainRequest(frame) {
			b.Fatal("not plain")
		}
	}
}
