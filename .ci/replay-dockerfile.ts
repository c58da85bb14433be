// Replays the Dockerfile where no Docker engine runs: reads the Dockerfile, replays the RUN steps of
// every stage the target image needs (FROM/COPY --from dependencies) in clean temporary directories,
// then starts the target's CMD as its USER inside a network namespace with only loopback
// (`unshare -n`) against the CI ClickHouse and PostgreSQL, and checks /readyz, the HEALTHCHECK,
// a scan and a clean SIGTERM. Prints the production node_modules size.
//
//   tsx .ci/replay-dockerfile.ts [--dockerfile Dockerfile] [--target runtime] [--keep]
//   needs CLICKHOUSE_URL and DATABASE_URL (an admin connection: a database is created beside it),
//   root (unshare, setpriv), socat, psql, curl, ip.
//
// Semantics replayed, as far as this project's Dockerfile needs them:
// - every stage gets its own empty directory standing for the image's root filesystem; a stage
//   FROM another stage starts from a copy of it, a base image contributes only Node (the image's
//   major version, from the npm package node@<major>, first on PATH);
// - WORKDIR, ENV (values naming a path inside the image are mapped into its directory), ARG
//   defaults, COPY from the build context (honouring .dockerignore) or --from a stage, --chown;
// - RUN in the stage's WORKDIR with its ENV; `--mount=type=cache,target=/root/.npm` is npm's
//   persistent cache, as BuildKit keeps it between builds (this machine's npm cache);
// - USER, CMD, HEALTHCHECK: used to start and probe the result.
// Install steps need the npm registry; only the start runs without network.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    dockerfile: { type: "string", default: "Dockerfile" },
    target: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});

const context = process.cwd();
const log = (message: string) => process.stdout.write(`replay: ${message}\n`);
class ReplayFailure extends Error {}
function fail(message: string): never {
  throw new ReplayFailure(message);
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface Instruction {
  keyword: string;
  /** flags like --from=build, in order */
  flags: string[];
  /** the rest after the flags */
  args: string;
  line: number;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

function logicalLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let current: { text: string; line: number } | null = null;
  text.split("\n").forEach((raw, index) => {
    const trimmed = raw.trim();
    // Comment lines are dropped, also inside a continued instruction (as Docker does).
    if (trimmed.startsWith("#") || (trimmed === "" && current === null)) return;
    const continued = trimmed.endsWith("\\");
    const piece = continued ? trimmed.slice(0, -1) : trimmed;
    if (current) current.text += ` ${piece}`;
    else current = { text: piece, line: index + 1 };
    if (!continued) {
      out.push(current);
      current = null;
    }
  });
  if (current) out.push(current);
  return out;
}

function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const { text: line, line: number } of logicalLines(text)) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = match[1]!.toUpperCase();
    let rest = match[2]!;
    const flags: string[] = [];
    for (let flag = /^(--\S+)\s+/.exec(rest); flag; flag = /^(--\S+)\s+/.exec(rest)) {
      flags.push(flag[1]!);
      rest = rest.slice(flag[0].length);
    }
    const instruction: Instruction = { keyword, flags, args: rest, line: number };
    if (keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) fail(`line ${number}: cannot read FROM ${rest}`);
      stages.push({ name: from[2] ?? String(stages.length), from: from[1]!, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword !== "ARG") fail(`line ${number}: ${keyword} before the first FROM`);
      const [name, value] = splitAssignment(rest);
      args.set(name, value ?? "");
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

function splitAssignment(text: string): [string, string | undefined] {
  const eq = text.indexOf("=");
  return eq < 0 ? [text.trim(), undefined] : [text.slice(0, eq).trim(), unquote(text.slice(eq + 1).trim())];
}

function unquote(value: string): string {
  return /^".*"$|^'.*'$/.test(value) ? value.slice(1, -1) : value;
}

/** ENV k=v k2="v 2" ... or the legacy ENV k v */
function parseEnv(text: string): [string, string][] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
    const [key, ...value] = text.split(/\s+/);
    return [[key!, value.join(" ")]];
  }
  const pairs: [string, string][] = [];
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) pairs.push([m[1]!, unquote(m[2]!)]);
  return pairs;
}

function substitute(text: string, vars: Map<string, string>): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, a?: string, b?: string) => vars.get((a ?? b)!) ?? whole,
  );
}

function flag(instruction: Instruction, name: string): string | undefined {
  const prefix = `--${name}=`;
  return instruction.flags.find((f) => f.startsWith(prefix))?.slice(prefix.length);
}

function execForm(args: string): string[] | null {
  if (!args.trim().startsWith("[")) return null;
  return JSON.parse(args) as string[];
}

// ---------------------------------------------------------------------------------------------
// .dockerignore (Go filepath.Match patterns plus **; a matching directory excludes its contents)

function ignoreMatcher(): (relative: string) => boolean {
  const file = path.join(context, ".dockerignore");
  if (!existsSync(file)) return () => false;
  const rules = readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = path.posix.normalize((negate ? l.slice(1) : l).replace(/^\/+/, ""));
      const source = pattern
        .split("")
        .map((c, i, all) => {
          if (c === "*") return all[i + 1] === "*" ? "" : all[i - 1] === "*" ? ".*" : "[^/]*";
          if (c === "?") return "[^/]";
          return /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
        })
        .join("")
        .replace(/\.\*\//g, "(?:.*/)?");
      return { negate, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (relative) => {
    let ignored = false;
    for (const rule of rules) if (rule.regex.test(relative)) ignored = !rule.negate;
    return ignored;
  };
}

// ---------------------------------------------------------------------------------------------
// Replaying stages

interface BuiltStage {
  name: string;
  root: string;
  workdir: string;
  env: Map<string, string>;
  user: string;
  cmd: string[] | null;
  healthcheck: string[] | null;
}

const work = mkdtempSync(path.join(os.tmpdir(), "mr-docker-replay-"));
chmodSync(work, 0o755); // the started image runs as its non-root USER and must reach its files
const isIgnored = ignoreMatcher();
const hostNpmCache = spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim() || path.join(os.homedir(), ".npm");

/** The image's Node (the base image's major version), from the npm package node@<major>. */
function nodeFor(image: string): string {
  const major = /^node:(\d+)/.exec(image)?.[1];
  if (!major) fail(`base image ${image}: only node:<major>-* images are replayed`);
  const dir = path.join(work, `node${major}`, "bin");
  if (!existsSync(path.join(dir, "node"))) {
    const found = spawnSync("npx", ["--yes", "-p", `node@${major}`, "-c", 'node -p "process.execPath"'], { encoding: "utf8" });
    const binary = found.stdout.trim().split("\n").at(-1) ?? "";
    if (found.status !== 0 || !existsSync(binary)) fail(`cannot get Node ${major} from npm: ${found.stderr}`);
    mkdirSync(dir, { recursive: true });
    cpSync(binary, path.join(dir, "node"));
    chmodSync(path.join(work, `node${major}`), 0o755);
    chmodSync(dir, 0o755);
  }
  const version = spawnSync(path.join(dir, "node"), ["--version"], { encoding: "utf8" }).stdout.trim();
  if (!version.startsWith(`v${major}.`)) fail(`node@${major} gave ${version}`);
  return dir;
}

function inRoot(stage: BuiltStage, containerPath: string): string {
  return path.join(stage.root, path.posix.resolve(stage.workdir, containerPath));
}

/** An ENV value naming a path that exists in the image is mapped into the stage's directory. */
function mapValue(stage: BuiltStage, value: string): string {
  if (!value.startsWith("/")) return value;
  const first = value.split("/")[1];
  return first && existsSync(path.join(stage.root, first)) ? path.join(stage.root, value) : value;
}

function owner(spec: string): [number, number] {
  const ids = spec.split(":").map((p) => (p === "root" ? 0 : Number(p)));
  if (ids.some((n) => !Number.isInteger(n))) fail(`--chown=${spec}: only numeric ids (or root) are replayed`);
  return [ids[0]!, ids[1] ?? ids[0]!];
}

function chownTree(target: string, uid: number, gid: number): void {
  chownSync(target, uid, gid);
  if (lstatSync(target).isDirectory()) for (const entry of readdirSync(target)) chownTree(path.join(target, entry), uid, gid);
}

function copy(stage: BuiltStage, instruction: Instruction, built: Map<string, BuiltStage>): void {
  const parts = instruction.args.split(/\s+/);
  const dest = parts.pop()!;
  const fromName = flag(instruction, "from");
  const from = fromName ? built.get(fromName) : null;
  if (fromName && !from) fail(`line ${instruction.line}: COPY --from=${fromName}: stage not replayed`);
  const destPath = inRoot(stage, dest);
  const intoDir = dest.endsWith("/") || parts.length > 1;
  for (const source of parts) {
    const sourcePath = from ? path.join(from.root, source) : path.join(context, source);
    if (!existsSync(sourcePath)) fail(`line ${instruction.line}: COPY ${source}: not found`);
    const target = intoDir && !statSync(sourcePath).isDirectory() ? path.join(destPath, path.basename(sourcePath)) : destPath;
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(sourcePath, target, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => from !== null || src === context || !isIgnored(path.relative(context, src).split(path.sep).join("/")),
    });
    const chown = flag(instruction, "chown");
    if (chown) chownTree(target, ...owner(chown));
  }
}

const REGISTRY_ACCESS = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "npm_config_registry",
];

function run(stage: BuiltStage, instruction: Instruction, nodeBin: string): void {
  const env: Record<string, string> = {
    PATH: `${nodeBin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
    HOME: path.join(stage.root, "root"),
  };
  // The host's way to the registry (a proxy, an extra CA), as `docker build --build-arg` would pass it.
  for (const key of REGISTRY_ACCESS) if (process.env[key]) env[key] = process.env[key]!;
  for (const [key, value] of stage.env) env[key] = mapValue(stage, value);
  for (const mount of instruction.flags.filter((f) => f.startsWith("--mount="))) {
    const fields = new Map(
      mount
        .slice("--mount=".length)
        .split(",")
        .map((kv) => splitAssignment(kv) as [string, string]),
    );
    if (fields.get("type") !== "cache" || fields.get("target") !== "/root/.npm")
      fail(`line ${instruction.line}: only npm's cache mount is replayed (${mount})`);
    env.npm_config_cache = hostNpmCache;
  }
  mkdirSync(env.HOME!, { recursive: true });
  const exec = execForm(instruction.args);
  const [file, ...args] = exec ?? ["/bin/sh", "-c", instruction.args];
  log(`[${stage.name}] RUN ${instruction.args}`);
  const result = spawnSync(file!, args, { cwd: path.join(stage.root, stage.workdir), env, stdio: "inherit" });
  if (result.status !== 0) fail(`stage ${stage.name}, line ${instruction.line}: RUN exited ${result.status ?? result.signal}`);
}

function replayStage(definition: Stage, args: Map<string, string>, built: Map<string, BuiltStage>): BuiltStage {
  const from = substitute(definition.from, args);
  const parent = built.get(from);
  const root = path.join(work, "stages", definition.name);
  mkdirSync(root, { recursive: true });
  chmodSync(path.dirname(root), 0o755);
  chmodSync(root, 0o755);
  if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
  const stage: BuiltStage = {
    name: definition.name,
    root,
    workdir: parent?.workdir ?? "/",
    env: new Map(parent?.env),
    user: parent?.user ?? "0",
    cmd: parent?.cmd ?? null,
    healthcheck: parent?.healthcheck ?? null,
  };
  const image = parent ? baseImages.get(parent.name)! : from;
  baseImages.set(definition.name, image);
  const nodeBin = nodeFor(image);
  log(
    `[${stage.name}] FROM ${from}${parent ? "" : ` (Node ${spawnSync(path.join(nodeBin, "node"), ["--version"], { encoding: "utf8" }).stdout.trim()})`}`,
  );
  const vars = new Map(args);
  for (const instruction of definition.instructions) {
    const text = substitute(instruction.args, new Map([...vars, ...stage.env]));
    const current = { ...instruction, args: text };
    switch (instruction.keyword) {
      case "WORKDIR":
        stage.workdir = path.posix.resolve(stage.workdir, text);
        mkdirSync(path.join(root, stage.workdir), { recursive: true });
        break;
      case "ENV":
        for (const [key, value] of parseEnv(text)) stage.env.set(key, value);
        break;
      case "ARG": {
        const [name, value] = splitAssignment(text);
        vars.set(name, value ?? args.get(name) ?? "");
        break;
      }
      case "COPY":
        log(`[${stage.name}] COPY ${instruction.flags.join(" ")} ${text}`);
        copy(stage, current, built);
        break;
      case "RUN":
        run(stage, current, nodeBin);
        break;
      case "USER":
        stage.user = text;
        break;
      case "CMD":
        stage.cmd = execForm(text) ?? ["/bin/sh", "-c", text];
        break;
      case "HEALTHCHECK": {
        const cmd = /CMD\s+(.*)$/.exec(text)?.[1];
        stage.healthcheck = cmd ? (execForm(cmd) ?? ["/bin/sh", "-c", cmd]) : null;
        break;
      }
      case "EXPOSE":
      case "LABEL":
        break;
      default:
        fail(`line ${instruction.line}: ${instruction.keyword} is not replayed`);
    }
  }
  return stage;
}
const baseImages = new Map<string, string>();

/** The target and every stage it needs (FROM a stage, COPY --from), in file order. */
function neededStages(stages: Stage[], target: string): Stage[] {
  const byName = new Map(stages.map((s) => [s.name, s]));
  const needed = new Set<string>();
  const visit = (name: string) => {
    const stage = byName.get(name);
    if (!stage || needed.has(name)) return;
    needed.add(name);
    visit(stage.from);
    for (const i of stage.instructions) {
      const from = i.keyword === "COPY" ? flag(i, "from") : undefined;
      if (from) visit(from);
    }
  };
  visit(target);
  return stages.filter((s) => needed.has(s.name));
}

// ---------------------------------------------------------------------------------------------
// Starting the result with loopback only

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { encoding: "utf8", env });
  if (result.status !== 0) fail(`${command} ${args.join(" ")}: ${result.stderr || result.stdout}`);
  return result.stdout;
}

function duBytes(dir: string): number {
  return Number(sh("du", ["-sb", dir]).split("\t")[0]);
}

async function startInNamespace(stage: BuiltStage): Promise<void> {
  const clickhouse = new URL(process.env.CLICKHOUSE_URL ?? fail("CLICKHOUSE_URL is not set"));
  const admin = new URL(process.env.DATABASE_URL ?? fail("DATABASE_URL is not set"));
  const database = `mr_image_${process.pid}_${Date.now().toString(36)}`;
  sh("psql", [admin.toString(), "-qc", `CREATE DATABASE "${database}"`]);
  const relays: ChildProcess[] = [];
  try {
    // The namespace's only way out: unix sockets (not network-namespaced) relayed to the CI servers.
    const sockets = path.join(work, "sockets");
    mkdirSync(sockets);
    const relay = (name: string, host: string, port: string) => {
      const socket = path.join(sockets, `${name}.sock`);
      relays.push(spawn("socat", [`UNIX-LISTEN:${socket},fork`, `TCP:${host}:${port}`], { stdio: "inherit" }));
      return socket;
    };
    const chSocket = relay("clickhouse", clickhouse.hostname, clickhouse.port || "8123");
    const pgSocket = relay("postgres", admin.hostname, admin.port || "5432");
    const inner = new URL(admin);
    inner.hostname = "127.0.0.1";
    inner.port = "5432";
    inner.pathname = `/${database}`;
    const innerClickHouse = new URL(clickhouse);
    innerClickHouse.hostname = "127.0.0.1";
    innerClickHouse.port = "8123";

    const nodeBin = nodeFor(baseImages.get(stage.name)!);
    const home = path.join(stage.root, "home", "node");
    mkdirSync(home, { recursive: true });
    chownSync(home, 1000, 1000);
    const daemonEnv: Record<string, string> = { PATH: `${nodeBin}:/usr/local/bin:/usr/bin:/bin`, HOME: home };
    for (const [key, value] of stage.env) daemonEnv[key] = mapValue(stage, value);
    Object.assign(daemonEnv, {
      DATABASE_URL: inner.toString(),
      CLICKHOUSE_URL: innerClickHouse.toString().replace(/\/$/, ""),
      API_KEYS: "image-replay-key-0123456789",
      SCAN_SCHEDULE: "off",
      SCAN_ON_START: "false",
      LOG_LEVEL: "info",
    });
    const [uid, gid] = stage.user.split(":");
    const script = path.join(path.dirname(new URL(import.meta.url).pathname), "image-smoke.sh");
    const child = spawn("unshare", ["-n", "bash", script], {
      stdio: "inherit",
      env: {
        PATH: process.env.PATH,
        SMOKE_APP_DIR: path.join(stage.root, stage.workdir),
        SMOKE_UID: uid ?? "0",
        SMOKE_GID: gid ?? uid ?? "0",
        SMOKE_CMD: JSON.stringify(stage.cmd),
        SMOKE_HEALTHCHECK: JSON.stringify(stage.healthcheck),
        SMOKE_ENV: JSON.stringify(daemonEnv),
        SMOKE_CH_SOCKET: chSocket,
        SMOKE_PG_SOCKET: pgSocket,
        SMOKE_PORT: daemonEnv.PORT ?? "8080",
        SMOKE_KEY: daemonEnv.API_KEYS!,
      },
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (code !== 0) fail(`the image did not start and answer as expected (exit ${code})`);
  } finally {
    for (const r of relays) r.kill();
    spawnSync("psql", [admin.toString(), "-qc", `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`]);
  }
}

// ---------------------------------------------------------------------------------------------

async function checkAndStart(result: BuiltStage, app: string): Promise<void> {
  const modules = path.join(app, "node_modules");
  for (const absent of ["chdb", "typescript", "@typescript", "vitest", "prisma", "tsx"]) {
    if (existsSync(path.join(modules, absent))) fail(`the image's node_modules contains ${absent}`);
  }
  const bytes = duBytes(modules);
  log(
    `production node_modules: ${(bytes / 1024 / 1024).toFixed(1)} MB (${bytes} bytes); image app directory: ${(duBytes(app) / 1024 / 1024).toFixed(1)} MB`,
  );

  await startInNamespace(result);
  log(`image replay passed in ${Math.round((Date.now() - started) / 1000)} s`);
}

const { args, stages } = parseDockerfile(readFileSync(path.join(context, opts.dockerfile), "utf8"));
const target = opts.target ?? stages.at(-1)!.name;
const plan = neededStages(stages, target);
const skipped = stages.filter((s) => !plan.includes(s));
log(`target ${target}: replaying stages ${plan.map((s) => s.name).join(", ")} in ${work}`);
if (skipped.length > 0) log(`not needed by ${target}, not replayed: ${skipped.map((s) => s.name).join(", ")}`);

const started = Date.now();
try {
  const built = new Map<string, BuiltStage>();
  for (const definition of plan) built.set(definition.name, replayStage(definition, args, built));
  const result = built.get(target)!;
  const app = path.join(result.root, result.workdir);
  log(`stages replayed in ${Math.round((Date.now() - started) / 1000)} s`);

  if (target !== stages.at(-1)!.name) {
    log(`${target} is not the runtime image (the last stage): replayed, not started`);
  } else {
    await checkAndStart(result, app);
  }
} catch (error) {
  process.stderr.write(`replay: FAILED: ${error instanceof ReplayFailure ? error.message : String((error as Error).stack)}\n`);
  process.exitCode = 1;
} finally {
  if (opts.keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
