/** Errors that handlers throw; the server turns them into GitHub's error bodies. */
import type { Schema } from './types.js';

const DOCS = 'https://docs.github.com/rest';

export type ValidationItem = NonNullable<Schema<'validation-error'>['errors']>[number];

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: ValidationItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The body GitHub sends: `message`, `documentation_url`, `status` as a string, `errors` on 422. */
  body(): Schema<'basic-error'> & { errors?: ValidationItem[] } {
    return {
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      documentation_url: DOCS,
      status: String(this.status),
    };
  }
}

export const notFound = (message = 'Not Found'): HttpError => new HttpError(404, message);

/** GitHub's 422 for a request that fails its schema: "Invalid request.\n\n<why>". */
export const invalidRequest = (why: string): HttpError => new HttpError(422, `Invalid request.\n\n${why}`);

/** GitHub's 422 "Validation Failed" with one structured error. */
export const validationFailed = (item: ValidationItem): HttpError =>
  new HttpError(422, 'Validation Failed', [item]);

/** GitHub's 422 with a plain message (the git data API answers this way). */
export const unprocessable = (message: string): HttpError => new HttpError(422, message);

export const conflict = (message: string): HttpError => new HttpError(409, message);
