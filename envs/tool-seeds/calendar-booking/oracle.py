"""Reference policy: read every invited calendar day by day up to the earliest common gap, book the meeting there, say when."""


def act(env, observation):
    day, start = env.answer
    if list(env.booked.values()) == [(day, start, env.duration, env.title)]:
        return f"Booked: {day} {start // 60:02d}:{start % 60:02d}"
    listed = {(call["arguments"]["person"], call["arguments"]["day"]) for call in env.calls if call["name"] == "list_events"}
    for searched in env.days[: env.days.index(day) + 1]:
        for person in env.people:
            if (person, searched) not in listed:
                return {"name": "list_events", "arguments": {"person": person, "day": searched}}
    return {"name": "book_meeting", "arguments": {"day": day, "start": f"{start // 60:02d}:{start % 60:02d}", "duration_minutes": env.duration, "title": env.title}}
