/**
 * The fields of an attempt's usage that the key proxy's metering adds (issue 48): what it metered, what the agent
 * reported beside it, and their difference. Spread into the journal's usage (fields.ts).
 */
import * as z from 'zod';

export const METERED_USAGE_FIELDS = {
  metered: z
    .looseObject({
      calls: z.number().int().nonnegative().register(z.globalRegistry, {
        description: 'Model calls the proxy forwarded and got an answer to.',
      }),
      input_tokens: z.number().int().nonnegative().register(z.globalRegistry, {
        description: 'Input tokens billed at the full rate (cache reads and writes not included).',
      }),
      cache_creation_input_tokens: z
        .number()
        .int()
        .nonnegative()
        .register(z.globalRegistry, { description: 'Input tokens written to the prompt cache.' }),
      cache_read_input_tokens: z.number().int().nonnegative().register(z.globalRegistry, {
        description: 'Input tokens read from the prompt cache (OpenAI: `cached_tokens`).',
      }),
      output_tokens: z.number().int().nonnegative().register(z.globalRegistry, {
        description: "Output tokens (Anthropic's streams: the last `message_delta`'s count).",
      }),
      cost_usd: z
        .number()
        .nonnegative()
        .register(z.globalRegistry, { description: 'The cost of the priced calls, from the price table.' }),
      unpriced_models: z.array(z.string()).optional().register(z.globalRegistry, {
        description: 'Models with no price: their tokens count, their cost does not.',
      }),
      recording: z
        .looseObject({
          path: z
            .string()
            .register(z.globalRegistry, { description: 'Where it is, from the working directory.' }),
          sha256: z.string().register(z.globalRegistry, { description: "The file's SHA-256, hex." }),
          calls: z
            .number()
            .int()
            .nonnegative()
            .register(z.globalRegistry, { description: 'Calls it holds.' }),
          calls_left_out: z
            .number()
            .int()
            .nonnegative()
            .optional()
            .register(z.globalRegistry, { description: 'Calls left out past its bound (64 MB).' }),
          workspace: z.string().optional().register(z.globalRegistry, {
            description:
              "The working directory the attempt ran in, when it was not the one `path` is relative to (the Action: the runner's checkout): a replay reads its copy's path as this one.",
          }),
          artifact: z
            .looseObject({
              repository: z
                .string()
                .register(z.globalRegistry, { description: 'The repository, `owner/name`.' }),
              workflow_run_id: z
                .number()
                .int()
                .register(z.globalRegistry, { description: 'The workflow run that holds it.' }),
              name: z.string().register(z.globalRegistry, { description: "The artifact's name." }),
              id: z.number().int().register(z.globalRegistry, { description: "The artifact's id." }),
            })
            .optional()
            .register(z.globalRegistry, {
              description:
                'The workflow artifact that keeps the recording (the Action), a zip holding it at `path`: `interlock replay` downloads it through the REST API.',
            }),
        })
        .optional()
        .register(z.globalRegistry, {
          description:
            "The attempt's model exchange (the CLI: `.interlock/runs/<id>.logs/<node>-<attempt>.model.jsonl` beside its log; the Action: the same path inside a workflow artifact, `artifact`): one JSON line per call (`call`, `method`, `path`, `request` body, `status`, `answer` as its bytes came, SSE events included; a call over Codex's WebSocket: `method` GET, the `response.create` message as `request`, the server's messages one per line as `answer`), the step's secrets removed.",
        }),
      unread_calls: z.number().int().nonnegative().optional().register(z.globalRegistry, {
        description: 'Calls whose answer carried no usage the proxy could read.',
      }),
    })
    .optional()
    .register(z.globalRegistry, {
      description:
        "What the key proxy metered from the model API's own answers to this attempt's calls (issue 48): calls, tokens by kind (`input_tokens` here is the uncached part), and their cost from the price table. When present, `input_tokens`, `output_tokens`, `cost_usd` and `model` above are these figures, and they are what budgets and the daily cap count. `unpriced_models`: models with no price (their tokens count, their cost does not); `unread_calls`: answers whose usage could not be read.",
    }),
  reported: z
    .looseObject({
      input_tokens: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .register(z.globalRegistry, { description: 'Input tokens the agent reported.' }),
      output_tokens: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .register(z.globalRegistry, { description: 'Output tokens the agent reported.' }),
      cost_usd: z
        .number()
        .nonnegative()
        .optional()
        .register(z.globalRegistry, { description: 'The cost the agent reported.' }),
    })
    .optional()
    .register(z.globalRegistry, {
      description:
        'What the agent itself reported (its JSON result, `$INTERLOCK_USAGE`) when the key proxy metered the attempt: kept beside the metered figures, never counted.',
    }),
  difference: z.string().optional().register(z.globalRegistry, {
    description:
      "Set when the agent's report differs from what the key proxy metered beyond rounding (more than a token or a cent, and one percent): both, in words.",
  }),
};
