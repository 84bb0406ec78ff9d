package deps

// SequenceRatio is Python's difflib.SequenceMatcher(None, a, b).ratio():
// 2*M / (len(a)+len(b)) over code points, where M is the total size of the
// matching blocks found by recursively taking the longest common substring
// (ties: earliest in a, then earliest in b). As in difflib, the "autojunk"
// heuristic applies when b has 200 or more code points: elements of b that
// occur more than len(b)/100+1 times do not seed matches (they can still
// extend one). Two empty strings have ratio 1.
func SequenceRatio(a, b string) float64 {
	if len(b) < 200 && isASCII(a) && isASCII(b) {
		return asciiRatio(a, b)
	}
	ra, rb := []rune(a), []rune(b)
	total := len(ra) + len(rb)
	if total == 0 {
		return 1.0
	}
	m := newMatcher(ra, rb)
	return 2.0 * float64(m.matches()) / float64(total)
}

type matcher struct {
	a, b       []rune
	b2j        map[rune][]int
	prev, cur  []int // j2len rows indexed by j+1
	prevTouch  []int
	curTouched []int
}

func newMatcher(a, b []rune) *matcher {
	b2j := make(map[rune][]int, len(b))
	for j, r := range b {
		b2j[r] = append(b2j[r], j)
	}
	if n := len(b); n >= 200 { // difflib's autojunk
		ntest := n/100 + 1
		for r, idx := range b2j {
			if len(idx) > ntest {
				delete(b2j, r)
			}
		}
	}
	return &matcher{a: a, b: b, b2j: b2j, prev: make([]int, len(b)+1), cur: make([]int, len(b)+1)}
}

// longest is difflib's find_longest_match without junk (isjunk is None, so
// only popular elements are excluded from seeding).
func (m *matcher) longest(alo, ahi, blo, bhi int) (besti, bestj, bestsize int) {
	besti, bestj = alo, blo
	for i := alo; i < ahi; i++ {
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := m.prev[j] + 1 // prev[j] is the run ending at b[j-1]
			m.cur[j+1] = k
			m.curTouched = append(m.curTouched, j+1)
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		for _, t := range m.prevTouch {
			m.prev[t] = 0
		}
		m.prev, m.cur = m.cur, m.prev
		m.prevTouch, m.curTouched = m.curTouched, m.prevTouch[:0]
	}
	for _, t := range m.prevTouch {
		m.prev[t] = 0
	}
	m.prevTouch = m.prevTouch[:0]
	// Extend by equal (non-junk) elements on each side.
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return besti, bestj, bestsize
}

// matches is the total size of get_matching_blocks().
func (m *matcher) matches() int {
	type span struct{ alo, ahi, blo, bhi int }
	queue := []span{{0, len(m.a), 0, len(m.b)}}
	total := 0
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := m.longest(s.alo, s.ahi, s.blo, s.bhi)
		if k == 0 {
			continue
		}
		total += k
		if s.alo < i && s.blo < j {
			queue = append(queue, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			queue = append(queue, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	return total
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiRatio is SequenceRatio for ASCII strings where autojunk cannot apply
// (len(b) < 200): the same search, scanning b directly instead of through
// an index, without allocating for short names.
func asciiRatio(a, b string) float64 {
	total := len(a) + len(b)
	if total == 0 {
		return 1.0
	}
	var stack [2][64]int
	prev, cur := stack[0][:], stack[1][:]
	if len(b)+1 > len(prev) {
		prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	type span struct{ alo, ahi, blo, bhi int }
	var qbuf [16]span
	queue := append(qbuf[:0], span{0, len(a), 0, len(b)})
	matches := 0
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := asciiLongest(a, b, s.alo, s.ahi, s.blo, s.bhi, prev, cur)
		if k == 0 {
			continue
		}
		matches += k
		if s.alo < i && s.blo < j {
			queue = append(queue, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			queue = append(queue, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	return 2.0 * float64(matches) / float64(total)
}

// asciiLongest is find_longest_match scanning b[blo:bhi] in order for each
// a[i]; prev/cur are rows indexed by j+1 (index blo stands for "before the
// range" and stays 0).
func asciiLongest(a, b string, alo, ahi, blo, bhi int, prev, cur []int) (besti, bestj, bestsize int) {
	besti, bestj = alo, blo
	for j := blo; j <= bhi; j++ {
		prev[j] = 0
	}
	cur[blo] = 0
	for i := alo; i < ahi; i++ {
		ai := a[i]
		for j := blo; j < bhi; j++ {
			if b[j] != ai {
				cur[j+1] = 0
				continue
			}
			k := prev[j] + 1
			cur[j+1] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		prev, cur = cur, prev
	}
	for besti > alo && bestj > blo && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return besti, bestj, bestsize
}
