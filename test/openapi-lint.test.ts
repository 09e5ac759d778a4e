// Standard tools take the OpenAPI document as it is (issue 20 §4), offline, from the
// packages in devDependencies: Redocly's `recommended` rules and Spectral's
// `spectral:oas` find nothing, and Spectral's OWASP ruleset finds only what is
// explained below as not applying to plainrest (the README points here) —
// never one of the findings the document answers (rate limits, 429, credentials'
// lengths, a list's maxItems, CORS, the JWT profile, the server's audience). What the linters find in a document is
// remembered (remembered.ts) until the document, this file or an installed package changes.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import type spectralCore from '@stoplight/spectral-core';
import type { RulesetDefinition } from '@stoplight/spectral-core';
import type spectralParsers from '@stoplight/spectral-parsers';
import type spectralRulesets from '@stoplight/spectral-rulesets';
import { describeApi } from '../src/server/routes.ts';
import { compileObject } from '../src/declarations/load-declaration.ts';
import { EXAMPLE } from './example-definitions.ts';
import { LIBRARY, WORKSHOP } from './declared-domains.ts';
import { remembered } from './remembered.ts';

/** The two functions of Redocly's library this file calls, as it calls them. */
interface Redocly {
  createConfig(config: { extends: string[] }): Promise<unknown>;
  lintFromString(options: {
    source: string;
    absoluteRef: string;
    config: unknown;
  }): Promise<{ ruleId: string; message: string; location: { pointer?: string }[] }[]>;
}
// Its own types (generated from its configuration's schema) cost each type-check of the
// suite 4.5 s of CPU, a third of it: imported by a name in a variable, which TypeScript
// does not follow, as src/store/open-database.ts imports the PostgreSQL package.
const REDOCLY: string = '@redocly/openapi-core';

/** What this file runs of the linters' packages. */
interface Linters {
  readonly redocly: Redocly;
  readonly spectral: typeof spectralCore;
  readonly parsers: typeof spectralParsers;
  /** All of spectral:oas's recommended rules but one (spectralOas), and that with the OWASP ruleset. */
  readonly oas: RulesetDefinition;
  readonly oasAndOwasp: RulesetDefinition;
}

let linters: Promise<Linters> | undefined;
/**
 * The linters, loaded on the first finding not remembered (remembered.ts): loading them costs about 2 s of CPU, and
 * the findings for a document, rulesets and packages that have not changed are read from the last run.
 */
function loadLinters(): Promise<Linters> {
  linters ??= (async () => {
    // Spectral's packages are CommonJS: required as such, their exports are what Spectral's guide names.
    const load = createRequire(import.meta.url);
    const [owasp, redocly] = await Promise.all([
      import('@stoplight/spectral-owasp-ruleset'),
      import(REDOCLY) as Promise<Redocly>,
    ]);
    const rulesets = load('@stoplight/spectral-rulesets') as typeof spectralRulesets;
    const oas = spectralOas(rulesets.oas as RulesetDefinition);
    return {
      redocly,
      spectral: load('@stoplight/spectral-core') as typeof spectralCore,
      parsers: load('@stoplight/spectral-parsers') as typeof spectralParsers,
      oas,
      oasAndOwasp: { extends: [oas, owasp.default as unknown as RulesetDefinition] } as RulesetDefinition,
    };
  })();
  return linters;
}

const DOCUMENT_TEXT = JSON.stringify(await describeApi(EXAMPLE), null, 2);

interface Finding {
  readonly code: string;
  readonly path: string;
  readonly message: string;
}

/**
 * Spectral's findings in `text` (a document's JSON) with `rulesets`, remembered under `name` (remembered.ts): the
 * same document, rulesets and packages find the same.
 */
function spectralFindings(name: string, rulesets: 'oas' | 'oasAndOwasp', text: string): Promise<Finding[]> {
  return remembered(`openapi-lint-spectral-${name}`, import.meta.url, [rulesets, text], async () => {
    const found = await loadLinters();
    const spectral = new found.spectral.Spectral();
    spectral.setRuleset(found[rulesets]);
    const results = await spectral.run(new found.spectral.Document(text, found.parsers.Json, 'openapi.json'));
    return results.map((result) => ({
      code: String(result.code),
      path: result.path.join('.'),
      message: result.message,
    }));
  });
}

/** The operations that need no token (README: Authentication and permissions) and the paths whose GET they are. */
const OPEN_READS = /^paths\.\/(healthz|readyz|v1|v1\/openapi\.json)?\.(get|head)\./;
/** A HEAD's answers carry no body (RFC 9110 §9.3.2); its error answers are these components. */
const BODILESS = /^components\.responses\.[A-Za-z]+WithoutBody$/;
const OPTIONS = /^paths\.[^.]+(\.json)?\.options\./;
/** Strings only the server writes: problem details, links, the token, response headers, the index, the HTML page, timestamps, the change feed's stream (which has no end), a webhook delivery's error. */
const SERVER_WRITTEN_STRING =
  /^(components\.schemas\.Problem\.|components\.schemas\.Token\.|components\.schemas\.[A-Za-z]+List(_pt)?\.properties\.links\.|components\.headers\.|components\.schemas\.[A-Za-z]+(_pt)?\.properties\.(created_at|updated_at|criado_em|atualizado_em)$|paths\.\/(v1)?\.get\.responses\.200\.content\.|components\.schemas\.ChangeEventStream$|components\.schemas\.Delivery[A-Za-z]*\.properties\.error$)/;
/** If-Match and If-None-Match: bounded by Node's limit on the size of the headers (431 beyond it). */
const CONDITIONAL_HEADER = (path: string): boolean =>
  /\.parameters\.\d+\.schema$/.test(path) &&
  /^paths\.[^.]+(\.json)?\.(get|head|put|patch|delete)\.parameters/.test(path);
/** Free text a client writes (names, categories, descriptions, emails, passwords): bounded in length, but no pattern to give. */
/** The values of a `category[in]` filter: free text, as the property is. */
const IN_FILTER_VALUES = /^paths\.[^.]+\.(get|head)\.parameters\.\d+\.schema\.items$/;
const FREE_TEXT = /\.properties\.(name|nome|category|categoria|description|descricao|email|password|senha)$/;

interface Explained {
  readonly rule: string;
  /** Where the rule may fire (a JSON path in the document); anywhere else is a real finding. */
  readonly where: (path: string) => boolean;
  readonly why: string;
}

/** The `headers` members of a batch's operations and results (README: Batches), in its schemas and examples. */
const BATCH_HEADERS_MEMBER = /^paths\.\/v1\/batches\.post\.(requestBody|responses\.200)\..*\.headers$/;

const EXPLAINED: readonly Explained[] = [
  {
    rule: 'owasp:api8:2023-define-cors-origin',
    where: (path) => BATCH_HEADERS_MEMBER.test(path),
    why: "a batch's operations and results carry a JSON member named headers (an operation's If-Match, a result's Location and ETag), which the rule takes for an answer's headers; the batch's own answers declare Access-Control-Allow-Origin as every answer does",
  },
  {
    rule: 'owasp:api1:2023-no-numeric-ids',
    where: (path) =>
      /^paths\.[^.]+\.parameters\.\d+\.schema$/.test(path) ||
      /^paths\.\/v1\/webhooks\/\{webhook_id\}\/deliveries\.(get|head)\.parameters\.\d+\.schema$/.test(path),
    why: "ids are sequential integers (README: Paths); every request is authorized against the record's owner, and another user's record is a 403 whether or not it exists (README: Authentication and permissions), so guessing an id reveals nothing; a delivery's event_id (a filter of an administrator's list) is the change feed's position, sequential by design",
  },
  {
    rule: 'owasp:api2:2023-read-restricted',
    where: (path) => OPEN_READS.test(path),
    why: 'the home page, the index, this document and the health checks are open by design (README: Authentication and permissions)',
  },
  {
    rule: 'owasp:api2:2023-write-restricted',
    where: (path) => path === 'paths./v1/tokens.post.security',
    why: 'POST /v1/tokens is the login: it takes credentials, not a token',
  },
  {
    rule: 'owasp:api8:2023-define-error-responses-401',
    where: (path) => OPEN_READS.test(path) || OPTIONS.test(path) || BODILESS.test(path),
    why: "open operations and OPTIONS never answer 401, and a HEAD's 401 has no body to describe",
  },
  {
    rule: 'owasp:api4:2023-rate-limit-responses-429',
    where: (path) => OPTIONS.test(path) || BODILESS.test(path),
    why: "OPTIONS is answered before the rate limit is applied, and a HEAD's 429 has no body to describe",
  },
  {
    rule: 'owasp:api8:2023-define-error-responses-500',
    where: (path) => /^paths\.[^.]+(\.json)?\.[a-z]+\.responses$/.test(path) || BODILESS.test(path),
    why: 'every operation documents 500 as its `default` answer (problem details); the statuses listed one by one are those a test makes the server answer, and no correct request can make it fail',
  },
  {
    rule: 'owasp:api4:2023-array-limit',
    where: (path) => path === 'components.schemas.Problem.properties.errors',
    why: "a problem's errors list one entry per offending field or parameter of the request; the server writes it, and the request's own limits bound it",
  },
  {
    rule: 'owasp:api4:2023-string-limit',
    where: (path) => SERVER_WRITTEN_STRING.test(path) || CONDITIONAL_HEADER(path),
    why: 'strings only the server writes (problem details, links, the token, headers, timestamps, an event stream, which ends only when the connection does) and If-Match/If-None-Match, which Node bounds with its header size limit (431); every string a client writes in a body or a query has a maxLength',
  },
  {
    rule: 'owasp:api4:2023-string-restricted',
    where: (path) =>
      SERVER_WRITTEN_STRING.test(path) ||
      CONDITIONAL_HEADER(path) ||
      FREE_TEXT.test(path) ||
      IN_FILTER_VALUES.test(path) ||
      path.startsWith('components.headers.'),
    why: 'free text (names, categories, descriptions, passwords; emails in the token request; the values of an [in] filter on such a property) has no pattern to give, and neither do the strings only the server writes',
  },
  {
    rule: 'owasp:api4:2023-integer-format',
    where: () => true,
    why: 'int32 and int64 are storage widths of other languages; JSON integers here are safe JavaScript integers, and their bounds are stated with minimum and maximum',
  },
  {
    rule: 'owasp:api4:2023-integer-limit',
    where: (path) =>
      !/Create|Replace|Patch/.test(path) ||
      /\.(product_id|produto_id)$/.test(path) ||
      /\.(id|user_id|usuario_id|webhook_id)$/.test(path),
    why: "ids (a user's, a webhook's), counts (total, pages, page) and RateLimit-Limit/Remaining have no upper bound but the safe integers; a product_id is checked against the products instead",
  },
];

/** Redocly's `recommended` problems in `text` (a document's JSON), remembered under `name` (remembered.ts). */
function redoclyProblems(name: string, text: string): Promise<string[]> {
  return remembered(`openapi-lint-redocly-${name}`, import.meta.url, [text], async () => {
    const { redocly } = await loadLinters();
    const config = await redocly.createConfig({ extends: ['recommended'] });
    const problems = await redocly.lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    return problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`);
  });
}

// All of spectral:oas's recommended rules but oas3-valid-media-example, which compiles the
// whole schema again for each of the hundred examples (10 s or more); Redocly's
// no-invalid-media-type-examples checks the same examples in about a second. The README's
// command runs the full set.
const spectralOas = (oas: RulesetDefinition): RulesetDefinition =>
  ({
    extends: [[oas, 'recommended']],
    rules: { 'oas3-valid-media-example': 'off' },
  }) as RulesetDefinition;

/** The OWASP ruleset's rules are named owasp:…, spectral:oas's are not. */
const isOwasp = (finding: { code: string }): boolean => finding.code.startsWith('owasp:');

let exampleFindings: Promise<Finding[]> | undefined;
/**
 * Spectral on the example document with spectral:oas and the OWASP ruleset at once: the document is read and its
 * references resolved once for both (a second run cost a second of CPU). Told apart by their names.
 */
function exampleSpectralFindings(): Promise<Finding[]> {
  exampleFindings ??= spectralFindings('example', 'oasAndOwasp', DOCUMENT_TEXT);
  return exampleFindings;
}

describe('openapi lint: standard linters take the document as it is', () => {
  test('Redocly `recommended`: no problems (its rules include every example against its schema)', async () => {
    assert.deepEqual(await redoclyProblems('example', DOCUMENT_TEXT), []);
  });

  test('Spectral `spectral:oas`: no findings of any severity', async () => {
    assert.deepEqual(
      (await exampleSpectralFindings()).filter((finding) => !isOwasp(finding)),
      [],
    );
  });

  // A declared domain's document is built by the same code from its declaration: its
  // examples must fit its patterns, bounds and formats, and its tags stay unique when a
  // vocabulary keeps a collection's name. (OWASP's findings there depend on what the
  // declaration bounds, which is its author's choice, so that ruleset judges the example domain.)
  for (const [name, declaration] of [
    ['library', LIBRARY],
    ['workshop', WORKSHOP],
  ] as const) {
    test(`a declared ${name}: Redocly \`recommended\` and Spectral \`spectral:oas\` find nothing`, async () => {
      const text = JSON.stringify(await describeApi(compileObject(declaration)), null, 2);
      assert.deepEqual(await redoclyProblems(name, text), []);
      assert.deepEqual(await spectralFindings(name, 'oas', text), []);
    });
  }

  test('Spectral OWASP: only the findings explained as not applying here, each where it is explained', async () => {
    const findings = (await exampleSpectralFindings()).filter(isOwasp);
    const unexplained = findings.filter(
      (finding) => !EXPLAINED.some((entry) => entry.rule === finding.code && entry.where(finding.path)),
    );
    assert.deepEqual(unexplained, []);
    // Each explanation is still needed (and the ruleset did run).
    assert.deepEqual(
      EXPLAINED.filter((entry) => !findings.some((finding) => finding.code === entry.rule)).map((entry) => entry.rule),
      [],
    );
    // The rules the document answers are silent.
    const fixed = [
      'rate-limit',
      'rate-limit-retry-after',
      'define-cors-origin',
      'jwt-best-practices',
      'inventory-access',
      'inventory-environment',
    ];
    const excused = (finding: { code: string; path: string }): boolean =>
      EXPLAINED.some((entry) => entry.rule === finding.code && entry.where(finding.path));
    for (const rule of fixed)
      assert.equal(
        findings.filter(
          (finding) =>
            (finding.code === `owasp:api4:2023-${rule}` || finding.code.endsWith(`:2023-${rule}`)) && !excused(finding),
        ).length,
        0,
        rule,
      );
  });

  test('the explanation table is exact: it cannot excuse a credential, a list or a 429 of a limited operation', () => {
    const excused = (rule: string, path: string): boolean =>
      EXPLAINED.some((entry) => entry.rule === rule && entry.where(path));
    assert.equal(excused('owasp:api4:2023-string-limit', 'components.schemas.Credentials.properties.password'), false);
    assert.equal(excused('owasp:api4:2023-string-limit', 'components.schemas.ProductCreate.properties.name'), false);
    assert.equal(excused('owasp:api4:2023-array-limit', 'components.schemas.ProductList.properties.data'), false);
    assert.equal(excused('owasp:api4:2023-rate-limit-responses-429', 'paths./v1/products.get.responses'), false);
    assert.equal(excused('owasp:api4:2023-rate-limit', 'paths./v1/products.get.responses.200'), false);
    assert.equal(excused('owasp:api8:2023-define-error-responses-401', 'paths./v1/products.get.responses'), false);
    assert.equal(excused('owasp:api8:2023-define-cors-origin', 'paths./v1/batches.post.responses.200.headers'), false);
    assert.equal(excused('owasp:api8:2023-define-cors-origin', 'paths./v1/products.post.responses.201.headers'), false);
  });
});
