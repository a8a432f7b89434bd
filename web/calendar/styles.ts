import { css } from 'lit';

// Themable through custom properties (set them on `calendar-view` or any ancestor) and ::part().
// Every size is fixed before the data arrives: loading never moves the page.
export const styles = css`
  :host {
    --_accent: var(--calendar-accent, #1a56a8);
    --_on-accent: var(--calendar-on-accent, #ffffff);
    --_bg: var(--calendar-background, #ffffff);
    --_fg: var(--calendar-color, #1b1b1f);
    --_muted: var(--calendar-muted-color, #555960);
    --_line: var(--calendar-border-color, #c9ccd1);
    --_soft: var(--calendar-soft-background, #f3f4f6);
    --_today: var(--calendar-today-background, #e6eefb);
    --_focus: var(--calendar-focus-color, #b3261e);
    --_danger: var(--calendar-canceled-color, #a3231b);
    --_radius: var(--calendar-radius, 6px);
    display: block;
    container-type: inline-size;
    font-family: var(--calendar-font, system-ui, sans-serif);
    font-size: var(--calendar-font-size, 1rem);
    line-height: 1.4;
    color: var(--_fg);
    background: var(--_bg);
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  :focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  button,
  select,
  input {
    font: inherit;
    color: inherit;
  }
  button {
    cursor: pointer;
  }
  a {
    color: var(--_accent);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem;
    margin-bottom: 0.75rem;
  }
  h2 {
    flex: 1 1 10rem;
    margin: 0;
    font-size: 1.35rem;
    min-height: 1.9rem;
  }
  h3 {
    margin: 0 0 0.5rem;
    font-size: 1.05rem;
  }
  .group {
    display: flex;
    gap: 0.25rem;
  }
  .btn {
    min-height: 2.25rem;
    min-width: 2.25rem;
    padding: 0.25rem 0.7rem;
    border: 1px solid var(--_line);
    border-radius: var(--_radius);
    background: var(--_bg);
  }
  .btn[aria-pressed='true'] {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  .btn:disabled {
    cursor: default;
    color: var(--_muted);
    background: var(--_soft);
  }
  form.filters {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem 0.75rem;
    margin-bottom: 0.75rem;
  }
  form.filters label {
    display: flex;
    flex-direction: column;
    font-size: 0.8rem;
    color: var(--_muted);
    flex: 1 1 8rem;
    min-width: 0;
  }
  form.filters select,
  form.filters input {
    height: 2.25rem;
    min-width: 0;
    border: 1px solid var(--_line);
    border-radius: var(--_radius);
    background: var(--_bg);
    padding: 0 0.4rem;
  }
  [role='grid'] {
    border: 1px solid var(--_line);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  [role='row'] {
    display: grid;
    grid-template-columns: repeat(7, minmax(0, 1fr));
  }
  [role='columnheader'] {
    padding: 0.3rem;
    text-align: center;
    font-size: 0.8rem;
    font-weight: 600;
    color: var(--_muted);
    background: var(--_soft);
  }
  [role='columnheader'] abbr {
    text-decoration: none;
  }
  [role='gridcell'] {
    position: relative;
    height: 7.25rem;
    padding: 0.2rem;
    border-top: 1px solid var(--_line);
    border-left: 1px solid var(--_line);
    overflow: hidden;
    cursor: pointer;
  }
  [role='gridcell']:nth-child(7n + 1) {
    border-left: 0;
  }
  [role='gridcell'].outside {
    background: var(--_soft);
  }
  [role='gridcell'].outside .num {
    color: var(--_muted);
  }
  [role='gridcell'].today .num {
    background: var(--_accent);
    color: var(--_on-accent);
  }
  [role='gridcell'][aria-selected='true'] {
    box-shadow: inset 0 0 0 2px var(--_accent);
  }
  [role='gridcell']:focus-visible {
    outline-offset: -3px;
  }
  .num {
    display: inline-block;
    min-width: 1.6rem;
    padding: 0 0.25rem;
    border-radius: 999px;
    text-align: center;
    font-size: 0.85rem;
    font-weight: 600;
  }
  .chips {
    list-style: none;
    margin: 0.1rem 0 0;
    padding: 0;
  }
  .chip {
    display: block;
    width: 100%;
    margin-top: 2px;
    padding: 0 0.3rem;
    border: 0;
    border-radius: 3px;
    background: var(--_today);
    text-align: start;
    font-size: 0.78rem;
    line-height: 1.35rem;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .chip.canceled .what,
  .row.canceled .what {
    text-decoration: line-through;
  }
  .more {
    font-size: 0.75rem;
    color: var(--_muted);
  }
  .dots {
    display: none;
    gap: 3px;
    justify-content: center;
    margin-top: 0.2rem;
  }
  .dot {
    width: 6px;
    height: 6px;
    border-radius: 50%;
    background: var(--_accent);
  }
  .agenda {
    margin-top: 1rem;
    min-height: 8rem;
  }
  ol.events {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .list {
    min-height: calc(var(--_rows, 10) * 3.5rem);
  }
  .row {
    display: grid;
    grid-template-columns: 9.5rem minmax(0, 1fr);
    gap: 0.15rem 0.75rem;
    align-items: baseline;
    width: 100%;
    min-height: 3.5rem;
    padding: 0.4rem 0.5rem;
    border: 0;
    border-bottom: 1px solid var(--_line);
    background: transparent;
    text-align: start;
  }
  .row:hover,
  .chip:hover {
    background: var(--_soft);
  }
  .when {
    color: var(--_muted);
    font-size: 0.9rem;
  }
  .what {
    font-weight: 600;
  }
  .where {
    grid-column: 2;
    font-size: 0.85rem;
    color: var(--_muted);
  }
  .badge {
    display: inline-block;
    margin-inline-start: 0.4rem;
    padding: 0 0.35rem;
    border: 1px solid var(--_danger);
    border-radius: 3px;
    color: var(--_danger);
    font-size: 0.75rem;
    font-weight: 600;
    text-decoration: none;
  }
  .empty {
    color: var(--_muted);
    padding: 0.5rem;
  }
  .pager {
    display: flex;
    justify-content: space-between;
    margin-top: 0.75rem;
  }
  .error {
    color: var(--_danger);
  }
  dialog {
    width: min(36rem, calc(100vw - 1rem));
    max-height: calc(100vh - 2rem);
    padding: 1rem 1.25rem;
    border: 1px solid var(--_line);
    border-radius: var(--_radius);
    color: var(--_fg);
    background: var(--_bg);
  }
  dialog::backdrop {
    background: rgb(0 0 0 / 0.4);
  }
  dialog h2 {
    font-size: 1.25rem;
    margin: 0 2.5rem 0.5rem 0;
  }
  dialog .close {
    position: absolute;
    top: 0.6rem;
    right: 0.6rem;
  }
  dl {
    display: grid;
    grid-template-columns: max-content minmax(0, 1fr);
    gap: 0.35rem 0.75rem;
    margin: 0.75rem 0;
  }
  dt {
    font-weight: 600;
    color: var(--_muted);
  }
  dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    margin-top: 0.75rem;
  }
  .actions a {
    display: inline-flex;
    align-items: center;
    text-decoration: none;
  }
  .tickets ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .ticket {
    padding: 0.75rem 0;
    border-top: 1px solid var(--_line);
  }
  .ticket h4 {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 0.5rem;
    margin: 0;
    font-size: 1rem;
  }
  .ticket p {
    margin: 0.25rem 0;
  }
  .ticket .error:empty {
    margin: 0;
  }
  .availability,
  .hint {
    color: var(--_muted);
  }
  .rsvp {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr));
    gap: 0.5rem 0.75rem;
    align-items: start;
    margin-top: 0.5rem;
  }
  .field {
    display: flex;
    flex-direction: column;
    gap: 0.15rem;
    min-width: 0;
  }
  .field label {
    font-weight: 600;
  }
  .field input {
    height: 2.25rem;
    padding: 0 0.5rem;
    border: 1px solid var(--_line);
    border-radius: var(--_radius);
    font: inherit;
    color: inherit;
    background: var(--_bg);
  }
  .field input[aria-invalid='true'] {
    border: 2px solid var(--_danger);
  }
  .hint,
  .field-error {
    font-size: 0.85rem;
  }
  .field-error {
    color: var(--_danger);
  }
  .btn.primary {
    grid-column: 1 / -1;
    justify-self: start;
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  .btn.primary[aria-disabled='true'] {
    cursor: progress;
  }
  .confirmation {
    padding: 0.5rem 0.75rem;
    border-left: 4px solid var(--_accent);
    background: var(--_soft);
  }
  .confirmation code {
    overflow-wrap: anywhere;
    user-select: all;
  }
  @container (max-width: 40rem) {
    [role='gridcell'] {
      height: 3.1rem;
      text-align: center;
    }
    .chips,
    .more {
      display: none;
    }
    .dots {
      display: flex;
    }
    .row {
      grid-template-columns: minmax(0, 1fr);
    }
    .where {
      grid-column: 1;
    }
    h2 {
      font-size: 1.15rem;
    }
  }
`;
