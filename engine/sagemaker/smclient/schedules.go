package smclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// schedulerAPI is the EventBridge Scheduler operations the package calls, as method values.
type schedulerAPI struct {
	createSchedule func(context.Context, *scheduler.CreateScheduleInput, ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error)
	updateSchedule func(context.Context, *scheduler.UpdateScheduleInput, ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error)
	getSchedule    func(context.Context, *scheduler.GetScheduleInput, ...func(*scheduler.Options)) (*scheduler.GetScheduleOutput, error)
	deleteSchedule func(context.Context, *scheduler.DeleteScheduleInput, ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error)
	listSchedules  func(context.Context, *scheduler.ListSchedulesInput, ...func(*scheduler.Options)) (*scheduler.ListSchedulesOutput, error)
}

func newSchedulerAPI(cfg aws.Config) *schedulerAPI {
	c := scheduler.NewFromConfig(cfg)
	return &schedulerAPI{createSchedule: c.CreateSchedule, updateSchedule: c.UpdateSchedule, getSchedule: c.GetSchedule,
		deleteSchedule: c.DeleteSchedule, listSchedules: c.ListSchedules}
}

var (
	scheduleNameRe = lazyre.New(`^[0-9a-zA-Z\-_.]{1,64}$`)
	rateRe         = lazyre.New(`^rate\(\d+ (minute|minutes|hour|hours|day|days)\)$`)
	atRe           = lazyre.New(`^at\(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\)$`)
)

// ScheduleInput is a schedule of a pipeline: EventBridge Scheduler starts an execution of the
// pipeline (its target) at the times the expression says, as the SageMaker Python SDK's
// PipelineSchedule does.
type ScheduleInput struct {
	// Name names the schedule (1-64 of letters, digits, '-', '_', '.'); the SDK defaults it to
	// the pipeline's name.
	Name string
	// Group is the schedule group ("" is the default group).
	Group string
	// PipelineARN is the target.
	PipelineARN string
	// Expression is when: rate(<n> <minutes|hours|days>), cron(<6 fields>) or
	// at(<yyyy-mm-ddThh:mm:ss>).
	Expression string
	// Timezone is the expression's time zone (IANA name; "" is UTC).
	Timezone string
	// RoleARN is the role EventBridge Scheduler assumes to start the execution (it needs
	// sagemaker:StartPipelineExecution and trusts scheduler.amazonaws.com).
	RoleARN string
	// Parameters are the pipeline parameter values of every scheduled execution.
	Parameters map[string]string
	// Disabled creates the schedule in the DISABLED state.
	Disabled    bool
	Description string
}

// Schedule is one EventBridge Scheduler schedule.
type Schedule struct {
	Name        string            `json:"name"`
	Group       string            `json:"group"`
	ARN         string            `json:"schedule_arn"`
	State       string            `json:"state"`
	Expression  string            `json:"expression,omitempty"`
	Timezone    string            `json:"timezone,omitempty"`
	TargetARN   string            `json:"target_arn"`
	RoleARN     string            `json:"role_arn,omitempty"`
	Parameters  map[string]string `json:"parameters,omitempty"`
	Description string            `json:"description,omitempty"`
	Created     *time.Time        `json:"created,omitempty"`
	Modified    *time.Time        `json:"modified,omitempty"`
}

// ScheduleError reports a schedule request that is refused before any call.
type ScheduleError struct{ Field, Reason string }

// Error implements error.
func (e *ScheduleError) Error() string { return e.Field + ": " + e.Reason }

// Kind implements errkind.Kinded: InvalidInput.
func (e *ScheduleError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the field.
func (e *ScheduleError) Details() map[string]any { return map[string]any{"field": e.Field} }

// CheckScheduleInput checks what EventBridge Scheduler would refuse: the name, the expression's
// shape, the role and the target.
func CheckScheduleInput(in ScheduleInput) error {
	if !scheduleNameRe().MatchString(in.Name) {
		return &ScheduleError{"name", fmt.Sprintf("%q is not a schedule name: 1-64 letters, digits, '-', '_' or '.'", in.Name)}
	}
	e := strings.TrimSpace(in.Expression)
	switch {
	case strings.HasPrefix(e, "rate("):
		if !rateRe().MatchString(e) {
			return &ScheduleError{"expression", fmt.Sprintf("%q: a rate is rate(<n> minute|minutes|hour|hours|day|days), e.g. rate(1 day)", e)}
		}
	case strings.HasPrefix(e, "cron("):
		if f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(e, "cron("), ")")); len(f) != 6 || !strings.HasSuffix(e, ")") {
			return &ScheduleError{"expression", fmt.Sprintf("%q: a cron expression has six fields, cron(minutes hours day-of-month month day-of-week year), e.g. cron(0 3 * * ? *)", e)}
		}
	case strings.HasPrefix(e, "at("):
		if !atRe().MatchString(e) {
			return &ScheduleError{"expression", fmt.Sprintf("%q: a one-time schedule is at(yyyy-mm-ddThh:mm:ss)", e)}
		}
	default:
		return &ScheduleError{"expression", fmt.Sprintf("%q: give rate(1 day), cron(0 3 * * ? *) or at(2030-01-01T03:00:00)", e)}
	}
	if in.Timezone != "" {
		if _, err := time.LoadLocation(in.Timezone); err != nil {
			return &ScheduleError{"timezone", fmt.Sprintf("%q is not an IANA time zone (e.g. Europe/Berlin)", in.Timezone)}
		}
	}
	if !roleARNRe().MatchString(in.RoleARN) {
		return &ScheduleError{"role_arn", fmt.Sprintf("%q is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)", in.RoleARN)}
	}
	if !strings.Contains(in.PipelineARN, ":pipeline/") {
		return &ScheduleError{"pipeline", fmt.Sprintf("%q is not a pipeline ARN", in.PipelineARN)}
	}
	return nil
}

// PutSchedule creates the schedule, or updates it when one of that name exists (the SDK's
// put_triggers does the same: UpdateSchedule, then CreateSchedule on ResourceNotFoundException).
// It answers the schedule as GetSchedule reads it back, and whether it was created.
func (c *Client) PutSchedule(ctx context.Context, in ScheduleInput) (*Schedule, bool, error) {
	if err := CheckScheduleInput(in); err != nil {
		return nil, false, err
	}
	c.clients()
	params := make([]schedtypes.SageMakerPipelineParameter, 0, len(in.Parameters))
	for _, k := range mapkeys.Sorted(in.Parameters) {
		params = append(params, schedtypes.SageMakerPipelineParameter{Name: aws.String(k), Value: aws.String(in.Parameters[k])})
	}
	target := &schedtypes.Target{Arn: aws.String(in.PipelineARN), RoleArn: aws.String(in.RoleARN),
		SageMakerPipelineParameters: &schedtypes.SageMakerPipelineParameters{PipelineParameterList: params}}
	state := schedtypes.ScheduleStateEnabled
	if in.Disabled {
		state = schedtypes.ScheduleStateDisabled
	}
	window := &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff}
	created := false
	_, err := c.sched.updateSchedule(ctx, &scheduler.UpdateScheduleInput{
		Name: aws.String(in.Name), GroupName: optString(in.Group), ScheduleExpression: aws.String(strings.TrimSpace(in.Expression)),
		ScheduleExpressionTimezone: optString(in.Timezone), FlexibleTimeWindow: window, Target: target, State: state,
		Description: optString(in.Description),
	})
	if code, _ := apiErrorCode(err); code == "ResourceNotFoundException" {
		_, err = c.sched.createSchedule(ctx, &scheduler.CreateScheduleInput{
			Name: aws.String(in.Name), GroupName: optString(in.Group), ScheduleExpression: aws.String(strings.TrimSpace(in.Expression)),
			ScheduleExpressionTimezone: optString(in.Timezone), FlexibleTimeWindow: window, Target: target, State: state,
			Description: optString(in.Description),
		})
		if err != nil {
			return nil, false, newAWSError("scheduler:CreateSchedule", in.Name, err)
		}
		created = true
	} else if err != nil {
		return nil, false, newAWSError("scheduler:UpdateSchedule", in.Name, err)
	}
	s, err := c.GetSchedule(ctx, in.Name, in.Group)
	return s, created, err
}

// GetSchedule reads one schedule. A missing one is an *AWSError with NotFound.
func (c *Client) GetSchedule(ctx context.Context, name, group string) (*Schedule, error) {
	c.clients()
	out, err := c.sched.getSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String(name), GroupName: optString(group)})
	if err != nil {
		return nil, scheduleError("scheduler:GetSchedule", name, err)
	}
	s := &Schedule{Name: aws.ToString(out.Name), Group: aws.ToString(out.GroupName), ARN: aws.ToString(out.Arn), State: string(out.State),
		Expression: aws.ToString(out.ScheduleExpression), Timezone: aws.ToString(out.ScheduleExpressionTimezone),
		Description: aws.ToString(out.Description), Created: out.CreationDate, Modified: out.LastModificationDate}
	if t := out.Target; t != nil {
		s.TargetARN, s.RoleARN = aws.ToString(t.Arn), aws.ToString(t.RoleArn)
		if p := t.SageMakerPipelineParameters; p != nil && len(p.PipelineParameterList) > 0 {
			s.Parameters = map[string]string{}
			for _, kv := range p.PipelineParameterList {
				s.Parameters[aws.ToString(kv.Name)] = aws.ToString(kv.Value)
			}
		}
	}
	return s, nil
}

// Schedules lists the schedules of a group ("" the default) whose target is pipelineARN (every
// schedule when it is ""), at most max (0: 100), optionally only those whose name starts with
// prefix.
func (c *Client) Schedules(ctx context.Context, group, prefix, pipelineARN string, max int) ([]Schedule, error) {
	c.clients()
	if max <= 0 {
		max = 100
	}
	out := []Schedule{}
	var next *string
	for {
		page, err := c.sched.listSchedules(ctx, &scheduler.ListSchedulesInput{GroupName: optString(group), NamePrefix: optString(prefix), NextToken: next, MaxResults: aws.Int32(100)})
		if err != nil {
			return nil, newAWSError("scheduler:ListSchedules", group, err)
		}
		for _, s := range page.Schedules {
			target := ""
			if s.Target != nil {
				target = aws.ToString(s.Target.Arn)
			}
			if pipelineARN != "" && target != pipelineARN {
				continue
			}
			out = append(out, Schedule{Name: aws.ToString(s.Name), Group: aws.ToString(s.GroupName), ARN: aws.ToString(s.Arn),
				State: string(s.State), TargetARN: target, Created: s.CreationDate, Modified: s.LastModificationDate})
			if len(out) == max {
				return out, nil
			}
		}
		if next = page.NextToken; aws.ToString(next) == "" {
			return out, nil
		}
	}
}

// DeleteSchedule deletes one schedule. A missing one is an *AWSError with NotFound.
func (c *Client) DeleteSchedule(ctx context.Context, name, group string) error {
	c.clients()
	if _, err := c.sched.deleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: aws.String(name), GroupName: optString(group)}); err != nil {
		return scheduleError("scheduler:DeleteSchedule", name, err)
	}
	return nil
}

// scheduleError is newAWSError with EventBridge Scheduler's not-found code recognised.
func scheduleError(op, target string, err error) *AWSError {
	e := newAWSError(op, target, err)
	if e.Code == "ResourceNotFoundException" {
		e.NotFound = true
	}
	return e
}
