// What a login may be, in one place: user administration refuses others, and so does the start-up
// check of CALENDAR_ADMIN_USER (a bad one used to reach the bootstrap and end in a stack trace).
export const LOGIN_PATTERN = /^[a-z0-9][a-z0-9._@-]{0,59}$/i;
export const LOGIN_RULE = 'A login is 1–60 characters: letters, digits, and . _ @ - (not first).';
