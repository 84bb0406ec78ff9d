package config

// seqRatio is Python's difflib.SequenceMatcher(None, a, b).ratio(): twice the
// number of matched characters (Ratcliff/Obershelp matching blocks, including
// the automatic junk heuristic for b of 200+ characters) over the total length.
func seqRatio(a, b string) float64 {
	ar, br := []rune(a), []rune(b)
	if len(ar)+len(br) == 0 {
		return 1
	}
	b2j := map[rune][]int{}
	for j, r := range br {
		b2j[r] = append(b2j[r], j)
	}
	if n := len(br); n >= 200 {
		ntest := n/100 + 1
		for r, idx := range b2j {
			if len(idx) > ntest {
				delete(b2j, r)
			}
		}
	}
	longest := func(alo, ahi, blo, bhi int) (int, int, int) {
		besti, bestj, bestsize := alo, blo, 0
		j2len := map[int]int{}
		for i := alo; i < ahi; i++ {
			next := map[int]int{}
			for _, j := range b2j[ar[i]] {
				if j < blo {
					continue
				}
				if j >= bhi {
					break
				}
				k := j2len[j-1] + 1
				next[j] = k
				if k > bestsize {
					besti, bestj, bestsize = i-k+1, j-k+1, k
				}
			}
			j2len = next
		}
		// Extend over elements dropped by the popularity heuristic (no explicit junk).
		for besti > alo && bestj > blo && ar[besti-1] == br[bestj-1] {
			besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
		}
		for besti+bestsize < ahi && bestj+bestsize < bhi && ar[besti+bestsize] == br[bestj+bestsize] {
			bestsize++
		}
		return besti, bestj, bestsize
	}
	matched := 0
	queue := [][4]int{{0, len(ar), 0, len(br)}}
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		alo, ahi, blo, bhi := q[0], q[1], q[2], q[3]
		i, j, k := longest(alo, ahi, blo, bhi)
		if k == 0 {
			continue
		}
		matched += k
		if alo < i && blo < j {
			queue = append(queue, [4]int{alo, i, blo, j})
		}
		if i+k < ahi && j+k < bhi {
			queue = append(queue, [4]int{i + k, ahi, j + k, bhi})
		}
	}
	return 2 * float64(matched) / float64(len(ar)+len(br))
}
