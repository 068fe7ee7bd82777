"""A shared calendar behind three tools: find the earliest time everyone is free, book the meeting there, say when.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. The free time shows only in the calendars (list_events, per person and day);
a booking that overlaps anyone's event is refused with an error observation naming the clash, and a wrong
booking can be cancelled. Levels make the meeting longer, add a colleague whose calendar counts too and days
to search (the earlier days have no gap long enough).
"""

import random
import re

LEVELS = [
    # (days to search, colleagues invited, meeting minutes)
    (1, 0, 30),
    (2, 0, 60),
    (2, 1, 60),
    (3, 1, 90),
]
MAX_CALLS = 12
OPENS, CLOSES = 9 * 60, 17 * 60  # working hours, minutes after midnight
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday"]
COLLEAGUES = ["dana", "eli", "farah", "goran", "hiro"]
TITLES = ["Budget review", "Design review", "Hiring sync", "Roadmap chat", "Vendor call", "Launch plan"]
EVENTS = ["Standup", "Planning", "Lunch", "Interview", "Focus time", "Design sync", "Retro", "Demo prep", "Training", "Customer call"]


def clock(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def busy_until(rng, start, end, shorter_than):
    """Busy intervals from `start` to exactly `end` whose gaps are all shorter than `shorter_than` minutes."""
    intervals, time = [], start
    while time < end:
        gap = rng.choice(range(0, shorter_than, 30))
        if time + gap >= end:
            gap = 0
        finish = min(time + gap + rng.choice([30, 60, 90]), end)
        intervals.append((time + gap, finish))
        time = finish
    return intervals


class CalendarBooking:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        days, colleagues, self.duration = LEVELS[level]
        self.days = WEEKDAYS[:days]
        self.people = ["you"] + rng.sample(COLLEAGUES, colleagues)
        self.title = rng.choice(TITLES)
        first_free = rng.randrange(days)  # the days before it have no gap long enough
        self.events = {(person, day): [] for person in self.people for day in self.days}
        for index, day in enumerate(self.days):
            if index < first_free:
                busy = busy_until(rng, OPENS, CLOSES, self.duration)
            else:
                slot = rng.randrange(OPENS, CLOSES - self.duration + 1, 30)
                after = min(slot + self.duration + rng.choice([0, 30, 60]), CLOSES)
                busy = busy_until(rng, OPENS, slot, self.duration) + busy_until(rng, after, CLOSES, 120)
            for start, end in busy:  # each busy interval is one person's event, or two people's back to back
                pieces = [(start, start + 30), (start + 30, end)] if len(self.people) > 1 and end - start >= 60 and rng.random() < 0.5 else [(start, end)]
                for (begin, finish), owner in zip(pieces, rng.sample(self.people, len(pieces))):
                    self.events[(owner, day)].append((begin, finish, rng.choice(EVENTS)))
        self.booked = {}  # event id -> (day, start, minutes, title), the agent's bookings
        self.answer = self.earliest_slot()
        self.next_event = rng.randint(100, 900)
        self.calls = []  # every tool call so far, as received
        self.done = False
        self.turns = 0
        invited = " and ".join(self.people[1:])
        return (
            f"Book a {self.duration}-minute meeting titled '{self.title}'"
            + (f" with {invited}" if invited else "")
            + f" at the earliest time when {'everyone invited is' if invited else 'you are'} free, between 09:00 and 17:00 on "
            + (" or ".join(self.days) + " (earlier days first)" if len(self.days) > 1 else self.days[0])
            + f". Calendars: {', '.join(self.people)}. Use the tools list_events, book_meeting and cancel_meeting (a booking that overlaps an event is refused), "
            "then reply with a final message (no tool call) stating the day and start time, e.g. 'Booked: friday 16:00'."
        )

    def calendar(self, person, day):
        """One person's events on one day, (start, end, title) in time order, the agent's bookings included."""
        booked = [(begin, begin + minutes, title) for booked_day, begin, minutes, title in self.booked.values() if booked_day == day]
        return sorted(self.events[(person, day)] + booked)

    def clash(self, day, start, end):
        """The first event (person, start, end, title) that overlaps start..end on `day`, or None."""
        for person in self.people:
            for begin, finish, title in self.calendar(person, day):
                if begin < end and start < finish:
                    return (person, begin, finish, title)
        return None

    def earliest_slot(self):
        for day in self.days:
            for start in range(OPENS, CLOSES - self.duration + 1, 30):
                if self.clash(day, start, start + self.duration) is None:
                    return (day, start)
        raise AssertionError("every instance has a free slot")

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
        if isinstance(action, dict):
            self.calls.append(action)
            observation, invalid = self.call(action["name"], action["arguments"])
            truncated = self.turns >= MAX_CALLS
            self.done = truncated
            return (observation, 0.0, False, truncated, {"invalid_action": invalid})
        self.done = True
        times = re.findall(r"\b(\d{1,2}):(\d{2})\b", action)
        days = re.findall(r"|".join(WEEKDAYS), action.lower())
        if not times or not days:
            return ("The final message states no day and time.", 0.0, True, False, {"invalid_action": True})
        day, start = self.answer
        booked = [(booked_day, begin, minutes, title.lower()) for booked_day, begin, minutes, title in self.booked.values()]
        stated = (days[-1], int(times[-1][0]) * 60 + int(times[-1][1]))
        if booked == [(day, start, self.duration, self.title.lower())] and stated == (day, start):
            return (f"Done: '{self.title}' is booked on {day} at {clock(start)}.", 1.0, True, False, {})
        return (f"Not done: the earliest free time was {day} {clock(start)}; you booked {len(booked)} meeting(s).", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "list_events":
            person, day = arguments["person"].strip().lower(), arguments["day"]
            if person not in self.people:
                return (f"Error: no calendar '{person}'; the calendars are {', '.join(self.people)}.", True)
            if day not in self.days:
                return (f"Error: only {', '.join(self.days)} can be searched.", True)
            listed = [f"{clock(begin)}-{clock(finish)} '{title}'" for begin, finish, title in self.calendar(person, day)]
            return (f"{person}, {day}: " + (", ".join(listed) or "no events"), False)
        if name == "book_meeting":
            day, start, minutes, title = arguments["day"], arguments["start"], arguments["duration_minutes"], arguments["title"].strip()
            if day not in self.days:
                return (f"Error: the meeting must be on {' or '.join(self.days)}.", True)
            hours_minutes = re.fullmatch(r"(\d{1,2}):(\d{2})", start.strip())
            if hours_minutes is None:
                return (f"Error: start '{start}' is not a time like 09:30.", True)
            begin = int(hours_minutes.group(1)) * 60 + int(hours_minutes.group(2))
            if begin < OPENS or begin + minutes > CLOSES:
                return ("Error: the meeting must lie between 09:00 and 17:00.", True)
            clash = self.clash(day, begin, begin + minutes)
            if clash is not None:
                person, clash_start, clash_end, clash_title = clash
                whose = "your" if person == "you" else f"{person}'s"
                return (f"Error: overlaps '{clash_title}' {clock(clash_start)}-{clock(clash_end)} on {whose} calendar.", True)
            event = f"E-{self.next_event}"
            self.next_event += 1
            self.booked[event] = (day, begin, minutes, title)
            return (f"Booked '{title}' on {day} {clock(begin)}-{clock(begin + minutes)} as event '{event}'.", False)
        if name == "cancel_meeting":
            event = arguments["event_id"].strip()
            if event not in self.booked:
                return (f"Error: no meeting '{event}' that you booked.", True)
            day, begin, minutes, title = self.booked.pop(event)
            return (f"Cancelled '{title}' on {day} {clock(begin)}.", False)
        return (f"Error: no tool '{name}'.", True)
