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
    ["FROM debian:bookworm\nRUN apt-get install -y foo$bar\n", /not a Debian package name/],
    ["FROM debian:bookworm\nRUN <<END\nmkdir /x\nEND\n", /here-document/],
    ["FROM debian:bookworm\nCOPY --chmod=600 a /a\n", /--chmod is not supported/],
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
      { kind: "copy", from: "data.csv", to: "/app/data", intoFolder: true },
      { kind: "copy", from: "src", to: "/app/src", intoFolder: false },
      { kind: "run", command: "mkdir -p logs && touch logs/app.log", workdir: "/app" },
    ]);
  });

  it("reads what real Dockerfiles write (a new user's walkthrough found each)", () => {
    const result = plan(
      [
        "FROM --platform=linux/amd64 debian:bookworm-slim",
        'ENV BASE=/opt/tools PATH="/opt/tools/bin:$PATH"',
        "ENV CONF=${BASE}/config",
        "WORKDIR $BASE",
        "RUN DEBIAN_FRONTEND=noninteractive apt-get -y install jq && \\",
        "",
        "    apt-get -qq install \"curl=7.88*\" && touch done",
        'COPY ["my readme", "/app/README"]',
        "COPY files/ /app/",
        "COPY --chown=nobody:nogroup tool.sh bin/",
      ].join("\n"),
    );
    expect(result.packages).toEqual(["curl", "jq"]);
    expect(result.env).toEqual({ BASE: "/opt/tools", PATH: "/opt/tools/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", CONF: "/opt/tools/config" });
    expect(result.workdir).toBe("/opt/tools");
    expect(result.steps).toEqual([
      { kind: "run", command: "touch done", workdir: "/opt/tools" },
      { kind: "copy", from: "my readme", to: "/app/README", intoFolder: false },
      { kind: "copy", from: "files", to: "/app", intoFolder: true },
      { kind: "copy", from: "tool.sh", to: "/opt/tools/bin", intoFolder: true },
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
