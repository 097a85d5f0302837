import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { TRACK_API_BASE_PATH } from '../../src/server.js';

/**
 * supertest's `request`, except that awaiting a request fails the test when its answer is not
 * what the document the app serves at `/track/v2/openapi.json` describes.
 */
export const request = checkedRequest(TRACK_API_BASE_PATH);
