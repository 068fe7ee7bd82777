import random
import re


def rising(seq):
    best = [1] * len(seq)
    for i in range(len(seq)):
        for j in range(i):
            if seq[j] < seq[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best) if best else 0


class RisingRun:
    def reset(self, seed):
        self.seq = random.Random(seed).sample(range(10, 100), 15)
        self.finished = False
        prompt = "Sequence: " + " ".join(map(str, self.seq)) + "\n"
        prompt += "Find the length of the longest strictly increasing subsequence (keep the "
        prompt += "original order; the chosen elements need not be adjacent). Reply with one "
        prompt += "integer, in the form 'Answer: <number>'."
        return prompt

    def step(self, action):
        if self.finished:
            return "The episode is over.", 0.0, True, False, {}
        self.finished = True
        found = re.findall(r"(?<!\d)-?\d{1,9}(?!\d)", action)
        value = int(found[-1]) if found else None
        target = rising(self.seq)
        if value == target:
            return "Correct: the longest increasing subsequence has length %d." % target, 1.0, True, False, {}
        return "Wrong: you answered %s." % ("nothing" if value is None else value), 0.0, True, False, {}
