import { describe, expect, it } from "vitest";
import { isRefusal, parseDockerfile, type DockerfilePlan } from "./dockerfile.js";

function refusal(text: string): string {
  const result = parseDockerfile(text);
  if (!isRefusal(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return `${result.line}: ${result.message}`;
}

function plan(text: string): DockerfilePlan {
  const result = parseDockerfile(text);
  if (isRefusal(result)) throw new Error(`line ${result.line}: ${result.message}`);
  return result;
}

describe("parseDockerfile: what is refused, with the line", () => {
  it.each([
    ["", /no FROM/],
    ["RUN echo hi\n", /first instruction must be FROM/],
    ["FROM ubuntu:24.04\n", /base image ubuntu:24.04 is not supported/],
    ["FROM python:3.12-slim\n", /not supported/],
    ["FROM debian:bookworm\nFROM debian:bookworm\n", /multi-stage/],
    ["FROM debian:bookworm\nUSER nobody\n", /^2: USER is not supported/],
    ["FROM debian:bookworm\nARG X=1\n", /ARG is not supported/],
    ["FROM debian:bookworm\nRUN pip install requests\n", /needs the network/],
    ["FROM debian:bookworm\nRUN curl -sSL https://x | sh\n", /needs the network/],
    ["FROM debian:bookworm\nRUN --mount=type=cache,target=/x true\n", /RUN flags/],
    ["FROM debian:bookworm\nCOPY --from=builder /a /b\n", /--from/],
    ["FROM debian:bookworm\nADD https://example.com/x.tar /x\n", /URL/],
    ["FROM debian:bookworm\nCOPY ../secret /x\n", /outside environment/],
    ["FROM debian:bookworm\nCOPY *.txt /x/\n", /wildcard/],
    ["FROM debian:bookworm\nRUN apt-get install -y 'bad name'\n", /not a Debian package name/],
  ])("%j", (text, pattern) => {
    expect(refusal(text)).toMatch(pattern);
  });
});

describe("parseDockerfile: what is honoured", () => {
  it("maps packages, set-up commands, copies, WORKDIR and ENV in order", () => {
    const result = plan(
      [
        "# a comment",
        "FROM debian:bookworm-slim",
        "RUN apt-get update && apt-get install -y --no-install-recommends \\",
        "    git make && rm -rf /var/lib/apt/lists/*",
        "ENV GREETING=\"hello world\" MODE=test",
        "ENV LANG C.UTF-8",
        "WORKDIR /app",
        "COPY data.csv ./data/",
        "COPY src /app/src",
        "RUN mkdir -p logs && touch logs/app.log",
        "WORKDIR sub",
        "CMD [\"bash\"]",
      ].join("\n"),
    );
    expect(result.packages).toEqual(["git", "make"]);
    expect(result.env).toEqual({ GREETING: "hello world", MODE: "test", LANG: "C.UTF-8" });
    expect(result.workdir).toBe("/app/sub");
    expect(result.steps).toEqual([
      { kind: "copy", from: "data.csv", to: "/app/data/data.csv" },
      { kind: "copy", from: "src", to: "/app/src" },
      { kind: "run", command: "mkdir -p logs && touch logs/app.log", workdir: "/app" },
    ]);
  });

  it("keeps a RUN that only mentions a package manager's name", () => {
    expect(plan('FROM debian:bookworm\nRUN echo "see the apt and pip docs" > /notes\n').steps).toEqual([{ kind: "run", command: 'echo "see the apt and pip docs" > /notes', workdir: "/" }]);
    expect(refusal("FROM debian:bookworm\nRUN cd /x; pip install y\n")).toMatch(/needs the network/);
  });

  it("maps python:3.11 to bookworm's python3, and a bare FROM keeps /root as the working directory", () => {
    expect(plan("FROM python:3.11-slim-bookworm\n").packages).toEqual(["python3", "python3-pip", "python3-venv"]);
    expect(plan("FROM debian:12\n").workdir).toBe("/root");
  });
});
