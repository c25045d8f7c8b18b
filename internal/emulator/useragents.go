package emulator

// UserAgent is one distinct pair of an API operation and the User-Agent
// header its requests carried (GET /_emulator/user-agents), with how many
// requests carried it. Operation is the Secrets Manager, STS or KMS action
// ("" for a request whose action was not read).
type UserAgent struct {
	Operation string `json:"operation"`
	UserAgent string `json:"user_agent"`
	Count     int64  `json:"count"`
}

// UserAgents is the answer of GET /_emulator/user-agents: every distinct
// (operation, User-Agent) pair in first-seen order, at most
// maxUserAgents of them (later new pairs are counted in Dropped).
type UserAgents struct {
	UserAgents []UserAgent `json:"user_agents"`
	Dropped    int64       `json:"dropped"`
}

// maxUserAgents bounds the pairs kept: a client sends a handful of user
// agents; a runaway one must not grow the emulator's memory.
const maxUserAgents = 1000

// userAgentLog is the emulator's record of user agents (guarded by e.mu).
type userAgentLog struct {
	index   map[[2]string]int
	entries []UserAgent
	dropped int64
}

// noteUserAgent records one API request's operation and User-Agent header.
func (e *Emulator) noteUserAgent(op, ua string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := &e.userAgents
	if l.index == nil {
		l.index = map[[2]string]int{}
	}
	k := [2]string{op, ua}
	if i, ok := l.index[k]; ok {
		l.entries[i].Count++
		return
	}
	if len(l.entries) >= maxUserAgents {
		l.dropped++
		return
	}
	l.index[k] = len(l.entries)
	l.entries = append(l.entries, UserAgent{Operation: op, UserAgent: ua, Count: 1})
}

// UserAgents returns the user agents recorded since the start or the last
// reset (a reset clears them, like the call counters).
func (e *Emulator) UserAgents() UserAgents {
	e.mu.Lock()
	defer e.mu.Unlock()
	return UserAgents{UserAgents: append([]UserAgent{}, e.userAgents.entries...), Dropped: e.userAgents.dropped}
}
