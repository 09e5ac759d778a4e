// The schema of a problem details body (RFC 9457; README: Errors), with the request id and the request target's
// length it carries, which the response headers describe too (headers.ts).

import { ERROR_STATUS, STATUS_TITLES } from '../errors/errors.ts';
import type { Schema } from './schemas.ts';

/**
 * The longest request target the server reads (MAX_URL_LENGTH in http/request-target.ts); a problem's instance is its
 * path.
 */
export const MAX_TARGET_LENGTH = 8192;

/** A request id (http/request-id.ts): the client's own when sane, else one the server made. */
export const REQUEST_ID_SCHEMA = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', maxLength: 128 } as const;

/**
 * RFC 9457 problem details with this API's members: the title is the status's reason phrase and the code one of the
 * table's (errors/errors.ts).
 */
export const PROBLEM_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'detail', 'request_id'],
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string', enum: [...new Set(Object.values(STATUS_TITLES))] },
    status: { type: 'integer', format: 'int32', minimum: 400, maximum: 599 },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    detail: { type: 'string' },
    instance: {
      type: 'string',
      format: 'uri-reference',
      maxLength: MAX_TARGET_LENGTH,
      description: 'the path of the request',
    },
    request_id: REQUEST_ID_SCHEMA,
    operation: {
      type: 'integer',
      minimum: 0,
      maximum: 99,
      description: "in a batch's answer (POST /v1/batches), the index of the operation refused",
    },
    errors: {
      type: 'array',
      description: 'one entry per offending field or query parameter (on 400 and 422)',
      items: {
        type: 'object',
        required: ['field', 'code', 'message'],
        additionalProperties: false,
        properties: {
          field: { type: 'string' },
          code: { type: 'string', pattern: '^[a-z_]+$' },
          message: { type: 'string' },
        },
      },
    },
  },
};
