//! The TypeScript a spec carries besides its steps, each piece only in the specs that use it:
//! the prelude that gives a test Windup's page behaviour where nothing is known of its pages
//! (every dialog accepted, a new tab followed after each step), the dialog handler of a spec
//! whose pages showed one, the probing form's helpers, and the helpers a step may call (a
//! missing credential, the `value` check, setups' storage files, the project's upload files,
//! one-time codes). Only `@playwright/test` and Node's own modules are used.

/// What a spec does before its first step when nothing is known of the tabs and dialogs its
/// pages open (`probe`: the probing form, which also notes them): Windup's page behaviour.
pub(super) fn prelude(probe: bool) -> String {
    let (on_dialog, site, on_popup) = if probe {
        (
            "(dialog) => {\n      record({ dialog: true });\n      dialog.accept(dialog.defaultValue());\n    }",
            "site?: string",
            "\n    if (page !== followed) {\n      if (site) record({ site, popup: true });\n      followed = page;\n    }",
        )
    } else {
        ("(dialog) => dialog.accept(dialog.defaultValue())", "", "")
    };
    let followed = if probe {
        "\n  let followed = page;"
    } else {
        ""
    };
    format!(
        "  let page = first;
  // As Windup: every dialog is accepted (a prompt with its default text), and after a step
  // that gives the page input, the steps move into a tab the page opened.
  const reported = new Map<Page, number>();
  const watch = (p: Page) => {{
    reported.set(p, 0);
    p.on('dialog', {on_dialog});
    p.on('popup', (tab) => {{
      reported.set(p, (reported.get(p) ?? 0) + 1);
      page = tab;
      watch(tab);
    }});
  }};
  watch(page);{followed}
  // Chromium has the new tab as soon as the step is done, Playwright reports it (and `watch`
  // moves `page`) a moment later: ask Chromium, and wait for Playwright when it has one more.
  const followNewTab = async ({site}) => {{
    const current = page;
    let opened = 0;
    try {{
      const cdp = await context.newCDPSession(current);
      const {{ targetInfo }} = await cdp.send('Target.getTargetInfo');
      const {{ targetInfos }} = await cdp.send('Target.getTargets');
      await cdp.detach();
      opened = targetInfos.filter((t) => t.type === 'page' && t.openerId === targetInfo.targetId).length;
    }} catch (e) {{
      if (current.isClosed()) return; // a page the step closed: nothing to follow from it
      throw e;
    }}
    if (page === current && opened > (reported.get(current) ?? 0)) {{
      await current.waitForEvent('popup');
    }}{on_popup}
  }};

"
    )
}

/// What a spec whose pages showed a dialog does first, and again on each tab it moves into.
pub(super) const ACCEPT_DIALOGS: &str =
    "page.on('dialog', (dialog) => dialog.accept(dialog.defaultValue()));";

/// The probing form's helpers (`--check` runs it first; see `resolve`): each step and check
/// tried on its plain locator under strict mode, then on the first visible match, and
/// Playwright's verdict appended to the file `WINDUP_PROBE` names, for the spec of `id`.
pub(super) fn probe_helpers(id: &str) -> String {
    format!(
        "
/** What `windup export --check` notes while it probes this spec. */
function record(finding: object) {{
  const file = process.env.{env};
  if (file) fs.appendFileSync(file, JSON.stringify({{ spec: {id}, ...finding }}) + '\\n');
}}

/** A step on its plain locator under strict mode; where Playwright finds more than one match, on the first visible one. */
async function probe<T>(site: string, plain: Locator, run: (l: Locator) => Promise<T>): Promise<T> {{
  try {{
    const result = await run(plain);
    record({{ site, unique: true }});
    return result;
  }} catch (e) {{
    if (!String(e instanceof Error ? e.message : e).includes('strict mode violation')) throw e;
    record({{ site, unique: false }});
    return await run(plain.filter({{ visible: true }}).first());
  }}
}}

/** A count of visible matches, noting whether the plain locator had hidden ones too. */
async function probeCount(site: string, plain: Locator, n: number, options?: {{ timeout?: number }}) {{
  await expect(plain.filter({{ visible: true }})).toHaveCount(n, options);
  record({{ site, unique: (await plain.count()) === n }});
}}
",
        env = super::resolve::PROBE_ENV,
        id = super::ts::string(id),
    )
}

pub(super) const MISSING_HELPER: &str = "
/** A credential the environment does not hold: the spec stops, naming it. */
function missing(name: string): never {
  throw new Error(`${name} is not set: export it before running the tests`);
}
";

/// Windup's `value` check decided in the page, where nothing told the export the element's
/// kind (the probing form notes it for the spec it writes after).
pub(super) fn value_helper(probe: bool) -> String {
    let (site, note) = if probe {
        (
            ", site?: string",
            "\n  if (site) record({ site, control });",
        )
    } else {
        ("", "")
    };
    format!(
        "
/**
 * Windup's `value` check: an input's, textarea's or select's value, any other element's text
 * with whitespace collapsed.
 */
async function expectValue(target: Locator, expected: string, options?: {{ timeout?: number }}{site}) {{
  const control = await target.evaluate(
    (el) => ['input', 'textarea', 'select'].includes(el.localName),
    undefined,
    options,
  );{note}
  if (control) await expect(target).toHaveValue(expected, options);
  else await expect(target).toHaveText(expected, options);
}}
"
    )
}

/// The helper naming a file of the project's `e2e/files/`, which is `files_dir` from the
/// specs' folder (`WINDUP_FILES` overrides it).
pub(super) fn files_helper(files_dir: &str) -> String {
    format!(
        "
/** A file of the project's `e2e/files/` (`WINDUP_FILES` to read them from elsewhere). */
function windupFile(name: string): string {{
  return path.resolve(process.env.WINDUP_FILES ?? path.join(path.dirname(test.info().file), {}), name);
}}
",
        super::ts::string(files_dir)
    )
}

pub(super) const TOTP_HELPER: &str = "
/** The current RFC 6238 code (HMAC-SHA-1, 30 s, 6 digits) of a base32 secret, as Windup types it. */
function totp(secret: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/[\\s=-]/g, '').toUpperCase()) {
    const v = alphabet.indexOf(c);
    if (v < 0) throw new Error('the TOTP secret is not base32');
    bits += v.toString(2).padStart(5, '0');
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30000)));
  const mac = crypto.createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return ((mac.readUInt32BE(offset) & 0x7fffffff) % 1000000).toString().padStart(6, '0');
}
";

pub(super) const STORAGE_FILE_HELPER: &str = "
/** Where a setup's storage is kept (it holds session tokens: keep `.auth/` out of git). */
function storageFile(dir: string, setup: string): string {
  return path.join(dir, '.auth', `${setup}.json`);
}
";

pub(super) const SAVED_STORAGE_HELPER: &str = "
/** The cookies and localStorage the setups saved, together. */
function savedStorage(dir: string, setups: string[]) {
  const states = setups.map((s) => JSON.parse(fs.readFileSync(storageFile(dir, s), 'utf8')));
  return {
    cookies: states.flatMap((s) => s.cookies),
    origins: states.flatMap((s) => s.origins),
  };
}
";
