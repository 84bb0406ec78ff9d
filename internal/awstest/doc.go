// Package awstest holds what the tests that talk to AWS share: a moto_server started on a free
// 127.0.0.1 port (StartMoto), an AWS environment pointed at test values only (SetEnv), SDK clients
// for checking state (Clients), and Server, an httptest server that speaks the AWS JSON 1.1
// protocol of SageMaker for the operations a test handles and forwards every other request to an
// upstream (moto), recording each call. It is used by tests only.
//
// A test that needs moto_server skips with a message when it is not on PATH, except under CI (any
// non-empty CI variable), where it fails.
package awstest
