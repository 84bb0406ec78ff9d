package smclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwl "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"

	"github.com/cursus-go/cursus/engine/errkind"
)

// logsAPI is the CloudWatch Logs operations the package calls, as method values (see api).
type logsAPI struct {
	describeLogStreams func(context.Context, *cwl.DescribeLogStreamsInput, ...func(*cwl.Options)) (*cwl.DescribeLogStreamsOutput, error)
	getLogEvents       func(context.Context, *cwl.GetLogEventsInput, ...func(*cwl.Options)) (*cwl.GetLogEventsOutput, error)
	filterLogEvents    func(context.Context, *cwl.FilterLogEventsInput, ...func(*cwl.Options)) (*cwl.FilterLogEventsOutput, error)
}

func newLogsAPI(cfg aws.Config) *logsAPI {
	c := cwl.NewFromConfig(cfg)
	return &logsAPI{describeLogStreams: c.DescribeLogStreams, getLogEvents: c.GetLogEvents, filterLogEvents: c.FilterLogEvents}
}

// Bounds of a log read.
const (
	// DefaultLogLines is how many events a log read answers when the query says none.
	DefaultLogLines = 50
	// MaxLogLines is the most events one read answers.
	MaxLogLines = 1000
	// MaxLogStreams is the most streams of one job a read looks at (a job has one per instance).
	MaxLogStreams = 50
	// MaxLogMessage is the most characters of one event's message an answer carries; the rest
	// is cut, saying how much.
	MaxLogMessage = 2000
	// filterRequests bounds the FilterLogEvents calls of one read (CloudWatch may answer pages
	// with no events while it searches).
	filterRequests = 5
)

// LogQuery says which events of a job's log to read.
type LogQuery struct {
	// Group is the log group (/aws/sagemaker/TrainingJobs, ...) and StreamPrefix the prefix of
	// the job's streams (<job name>/), as StepExecution.Logs names them.
	Group, StreamPrefix string
	// Filter is a CloudWatch Logs filter pattern ("ERROR", "?Traceback ?Error", "\"exit code\"");
	// with one, the read goes forward through the matching events (oldest first).
	Filter string
	// Lines is how many events to answer (1-MaxLogLines; 0 means DefaultLogLines).
	Lines int
	// FromHead reads from the first event forward instead of the last events backward.
	FromHead bool
	// Token continues an earlier read: the Next of its LogPage.
	Token string
}

// LogEvent is one event (line) of a job's log.
type LogEvent struct {
	Time    time.Time `json:"time"`
	Stream  string    `json:"stream"`
	Message string    `json:"message"`
}

// LogPage is one read of a job's log: its events in time order, and the token of the next read
// (older events for a tail, later ones for a read from the head or a filter; "" when there are
// none).
type LogPage struct {
	Group   string     `json:"log_group"`
	Streams []string   `json:"streams"`
	Events  []LogEvent `json:"events"`
	Next    string     `json:"next_token,omitempty"`
	// MoreStreams is true when the job has more than MaxLogStreams streams (only the first were
	// read).
	MoreStreams bool `json:"more_streams,omitempty"`
	// Cut is true when a message was longer than MaxLogMessage and was cut.
	Cut bool `json:"cut,omitempty"`
}

// logToken is the state of a read that goes on, base64url JSON inside LogPage.Next.
type logToken struct {
	Mode   string            `json:"m"`           // "tail", "head" or "filter"
	Tokens map[string]string `json:"t,omitempty"` // tail and head: stream -> its CloudWatch token
	Next   string            `json:"n,omitempty"` // filter: FilterLogEvents' nextToken
}

// LogError reports a log read that cannot be made as asked (a bad token, a query without a
// group).
type LogError struct{ Reason string }

// Error implements error.
func (e *LogError) Error() string { return "log read: " + e.Reason }

// Logs reads a job's CloudWatch log: its streams (DescribeLogStreams with the job's prefix), then
// the last q.Lines events (GetLogEvents backward from each stream's end, the lines shared among
// the streams), the first ones (q.FromHead), or the events matching q.Filter (FilterLogEvents on
// those streams, forward). A job that wrote no log yet answers no streams and no events.
// Failed calls are *AWSError values (NotFound false: a missing group is "no log").
func (c *Client) Logs(ctx context.Context, q LogQuery) (*LogPage, error) {
	c.clients()
	if q.Group == "" {
		return nil, &LogError{Reason: "no log group"}
	}
	lines := q.Lines
	if lines <= 0 {
		lines = DefaultLogLines
	}
	lines = min(lines, MaxLogLines)
	var tok logToken
	if q.Token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Token)
		if err != nil || json.Unmarshal(raw, &tok) != nil {
			return nil, &LogError{Reason: "next_token is not a token an earlier read answered"}
		}
	}
	mode := "tail"
	switch {
	case q.Filter != "":
		mode = "filter"
	case q.FromHead:
		mode = "head"
	}
	if q.Token != "" && tok.Mode != mode {
		return nil, &LogError{Reason: fmt.Sprintf("next_token continues a %s read; ask for the same (filter and from_head as before)", tok.Mode)}
	}
	page := &LogPage{Group: q.Group, Streams: []string{}, Events: []LogEvent{}}
	streams, more, err := c.logStreams(ctx, q.Group, q.StreamPrefix)
	if err != nil || len(streams) == 0 {
		return page, err
	}
	page.Streams, page.MoreStreams = streams, more
	var next *logToken
	if mode == "filter" {
		next, err = c.filterLogs(ctx, q, streams, lines, tok, page)
	} else {
		next, err = c.streamLogs(ctx, q.Group, streams, lines, mode == "head", q.Token != "", tok, page)
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(page.Events, func(a, b LogEvent) int { return a.Time.Compare(b.Time) })
	if next != nil {
		raw, _ := json.Marshal(next)
		page.Next = base64.RawURLEncoding.EncodeToString(raw)
	}
	return page, nil
}

// logStreams lists the streams of a job (at most MaxLogStreams), sorted by name. A missing group
// is no streams.
func (c *Client) logStreams(ctx context.Context, group, prefix string) ([]string, bool, error) {
	in := &cwl.DescribeLogStreamsInput{LogGroupName: aws.String(group), Limit: aws.Int32(MaxLogStreams)}
	if prefix != "" {
		in.LogStreamNamePrefix = aws.String(prefix)
	}
	out, err := c.logs.describeLogStreams(ctx, in)
	if err != nil {
		if code, _ := apiErrorCode(err); code == "ResourceNotFoundException" {
			return nil, false, nil
		}
		return nil, false, newAWSError("logs:DescribeLogStreams", group+":"+prefix, err)
	}
	names := make([]string, 0, len(out.LogStreams))
	for _, s := range out.LogStreams {
		names = append(names, aws.ToString(s.LogStreamName))
	}
	slices.Sort(names)
	return names, aws.ToString(out.NextToken) != "" && len(names) >= MaxLogStreams, nil
}

// streamLogs reads each stream's share of lines with GetLogEvents, backward from its end (or
// forward from its start), continuing from tok when going on.
func (c *Client) streamLogs(ctx context.Context, group string, streams []string, lines int, head, goingOn bool, tok logToken, page *LogPage) (*logToken, error) {
	share := max(1, (lines+len(streams)-1)/len(streams))
	next := &logToken{Mode: "tail", Tokens: map[string]string{}}
	if head {
		next.Mode = "head"
	}
	for _, s := range streams {
		var from *string
		if goingOn {
			t, ok := tok.Tokens[s]
			if !ok {
				continue // that stream was read to its end
			}
			from = aws.String(t)
		}
		out, err := c.logs.getLogEvents(ctx, &cwl.GetLogEventsInput{
			LogGroupName: aws.String(group), LogStreamName: aws.String(s), Limit: aws.Int32(int32(share)),
			StartFromHead: aws.Bool(head), NextToken: from,
		})
		if err != nil {
			return nil, newAWSError("logs:GetLogEvents", group+":"+s, err)
		}
		for _, e := range out.Events {
			page.add(s, aws.ToInt64(e.Timestamp), aws.ToString(e.Message))
		}
		// A stream read to its end answers fewer events than asked (or its token again).
		t := out.NextBackwardToken
		if head {
			t = out.NextForwardToken
		}
		if len(out.Events) == share && aws.ToString(t) != "" && (from == nil || aws.ToString(t) != *from) {
			next.Tokens[s] = aws.ToString(t)
		}
	}
	if len(next.Tokens) == 0 {
		return nil, nil
	}
	return next, nil
}

// filterLogs reads the events matching q.Filter forward with FilterLogEvents.
func (c *Client) filterLogs(ctx context.Context, q LogQuery, streams []string, lines int, tok logToken, page *LogPage) (*logToken, error) {
	next := tok.Next
	for i := 0; i < filterRequests && len(page.Events) < lines; i++ {
		in := &cwl.FilterLogEventsInput{
			LogGroupName: aws.String(q.Group), LogStreamNames: streams, FilterPattern: aws.String(q.Filter),
			Limit: aws.Int32(int32(lines - len(page.Events))),
		}
		if next != "" {
			in.NextToken = aws.String(next)
		}
		out, err := c.logs.filterLogEvents(ctx, in)
		if err != nil {
			return nil, newAWSError("logs:FilterLogEvents", q.Group+":"+q.StreamPrefix, err)
		}
		for _, e := range out.Events {
			page.add(aws.ToString(e.LogStreamName), aws.ToInt64(e.Timestamp), aws.ToString(e.Message))
		}
		next = aws.ToString(out.NextToken)
		if next == "" {
			return nil, nil
		}
	}
	return &logToken{Mode: "filter", Next: next}, nil
}

// add adds an event, its message without the trailing newline and cut at MaxLogMessage
// characters.
func (p *LogPage) add(stream string, ms int64, msg string) {
	msg = strings.TrimRight(msg, "\r\n")
	if utf8.RuneCountInString(msg) > MaxLogMessage {
		r := []rune(msg)
		msg = string(r[:MaxLogMessage]) + fmt.Sprintf(" [... %d more characters]", len(r)-MaxLogMessage)
		p.Cut = true
	}
	p.Events = append(p.Events, LogEvent{Time: time.UnixMilli(ms).UTC(), Stream: stream, Message: msg})
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *LogError) Kind() errkind.Kind { return errkind.InvalidInput }
