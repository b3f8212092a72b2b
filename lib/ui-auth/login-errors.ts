/** The provider could not be reached in time (discovery, token or JWKS call): the page answers 503. */
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The provider's answer does not prove who this is (bad code, ID token, state): the page answers 401. */
export class LoginRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Our own sign-in settings cannot be used (a secret unreadable or too short): the page answers 503. */
export class LoginSetupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
