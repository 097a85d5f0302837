// The rule lives in @trustpoint/verifier, the publishable package every verifier uses; re-exported
// here so the APIs and the anchoring engine keep importing the domain and there is one implementation.
export { UnexpectedEthCallResponseError } from '@trustpoint/verifier';
