import random
import re

SIZES = [4, 7, 9, 12, 15, 20, 25, 30]
ANSWERS = [3, 2, 1, 1, 1, 1, 1, 1]


def rising(seq):
    best = [1] * len(seq)
    for i in range(len(seq)):
        for j in range(i):
            if seq[j] < seq[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best) if best else 0


class RisingRun:
    def reset(self, seed, level=0):
        if level < 0 or level >= len(SIZES):
            raise ValueError("level must be 0..%d, got %d" % (len(SIZES) - 1, level))
        self.seq = random.Random(seed).sample(range(10, 100), SIZES[level])
        self.left = ANSWERS[level]
        self.finished = False
        prompt = "Sequence: " + " ".join(map(str, self.seq)) + "\n"
        prompt += "Find the length of the longest strictly increasing subsequence (keep the "
        prompt += "original order; the chosen elements need not be adjacent). Reply with one "
        prompt += "integer, in the form 'Answer: <number>'."
        if self.left > 1:
            prompt += " You have %d tries." % self.left
        return prompt

    def step(self, action):
        if self.finished:
            return "The episode is over.", 0.0, True, False, {}
        self.left -= 1
        self.finished = self.left <= 0
        found = re.findall(r"(?<!\d)-?\d{1,9}(?!\d)", action)
        value = int(found[-1]) if found else None
        target = rising(self.seq)
        if value == target:
            self.finished = True
            return "Correct: the longest increasing subsequence has length %d." % target, 1.0, True, False, {}
        more = "" if self.finished else " Try again (%d left)." % self.left
        return "Wrong: you answered %s.%s" % ("nothing" if value is None else value, more), 0.0, self.finished, False, {}
