import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { ProblemView } from "../../ui/ProblemView";
import { savePreferencesMutation, type Subscriber } from "./queries";
import { andThen } from "../../api/mutations";
import { DAY_LABEL, DAYS, type Day, OFFICE_WEEK, type Schedule, sameSchedule } from "./schedule";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Table } from "../../ui/Table";
import { Card } from "../../ui/Card";

/**
 * The subscriber's delivery schedule, the one Novu's Inbox shows as "Schedule": the hours of each
 * day in which non-critical email, SMS, push and chat go out. Saved whole (`schedule` replaces).
 */
export function ScheduleCard({ subscriber }: { subscriber: Subscriber }) {
  const api = useApi();
  const stored = subscriber.preferences.schedule;
  const [draft, setDraft] = useState<Schedule | null>(stored);
  const save = useMutation(andThen(savePreferencesMutation(api, subscriber.subscriberId), (saved) => setDraft(saved.schedule)));
  const changed = !sameSchedule(draft, stored);

  function setDay(day: Day, patch: Partial<NonNullable<Schedule["days"][Day]>>) {
    if (!draft) return;
    const current = draft.days[day] ?? { enabled: false, hours: [] };
    const next = { ...current, ...patch };
    // A day turned on with no hours would let nothing through: it starts with office hours.
    if (patch.enabled && next.hours.length === 0) next.hours = [{ start: "09:00", end: "17:00" }];
    setDraft({ ...draft, days: { ...draft.days, [day]: next } });
  }

  function setHour(day: Day, index: number, field: "start" | "end", value: string) {
    const hours = (draft?.days[day]?.hours ?? []).map((h, i) => (i === index ? { ...h, [field]: value } : h));
    setDay(day, { hours });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    save.reset();
    save.mutate({ schedule: draft });
  }

  const errorAt = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const anyFieldError = save.error instanceof ApiError && save.error.fieldError("schedule") !== undefined;

  return (
    <Card aria-labelledby="schedule-title">
      <h2 id="schedule-title">Delivery schedule</h2>
      <p className="muted small">
        Outside these hours, non-critical email, SMS, push and chat wait for the next window, in the subscriber's time zone (
        {subscriber.timezone ?? "UTC, none set"}). In-app and critical messages are never held. The subscriber sets the same schedule in the
        Inbox's preferences.
      </p>
      <form onSubmit={submit} aria-label="Delivery schedule">
        {draft === null ? (
          <div className="sub-actions">
            <span className="muted">No schedule: messages go out at any time (quiet hours aside).</span>
            <Button type="button" onClick={() => setDraft(OFFICE_WEEK)}>
              Add a schedule
            </Button>
          </div>
        ) : (
          <>
            <label className="sub-check">
              <Checkbox checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })} />
              Hold messages outside the schedule
            </label>
            <Table className="sub-schedule">
              <thead>
                <tr>
                  <th>Day</th>
                  <th>Hours</th>
                </tr>
              </thead>
              <tbody>
                {DAYS.map((day) => {
                  const value = draft.days[day];
                  const on = value?.enabled ?? false;
                  return (
                    <tr key={day} data-day={day}>
                      <td>
                        <label className="sub-check">
                          <Checkbox checked={on} onChange={(e) => setDay(day, { enabled: e.target.checked })} />
                          {DAY_LABEL[day]}
                        </label>
                      </td>
                      <td>
                        {on ? (
                          <div className="sub-schedule-hours">
                            {(value?.hours ?? []).map((h, i) => {
                              const error = errorAt(`schedule.days.${day}.hours.${i}`);
                              return (
                                // biome-ignore lint/suspicious/noArrayIndexKey: a window has no identity but its place
                                <div key={i} className="sub-schedule-window">
                                  <Input
                                    type="time"
                                    required
                                    aria-label={`${DAY_LABEL[day]} window ${i + 1} from`}
                                    value={h.start}
                                    onChange={(e) => setHour(day, i, "start", e.target.value)}
                                    aria-invalid={error ? true : undefined}
                                  />
                                  <span aria-hidden="true">–</span>
                                  <Input
                                    type="time"
                                    required
                                    aria-label={`${DAY_LABEL[day]} window ${i + 1} to`}
                                    value={h.end}
                                    onChange={(e) => setHour(day, i, "end", e.target.value)}
                                    aria-invalid={error ? true : undefined}
                                  />
                                  <Button
                                    type="button"
                                    aria-label={`Remove ${DAY_LABEL[day]} window ${i + 1}`}
                                    onClick={() => setDay(day, { hours: (value?.hours ?? []).filter((_, j) => j !== i) })}
                                  >
                                    Remove
                                  </Button>
                                  {error ? (
                                    <span className="field-error" role="alert">
                                      {error}
                                    </span>
                                  ) : null}
                                </div>
                              );
                            })}
                            <Button
                              type="button"
                              onClick={() => setDay(day, { hours: [...(value?.hours ?? []), { start: "09:00", end: "17:00" }] })}
                            >
                              Add hours
                            </Button>
                          </div>
                        ) : (
                          <span className="muted">Nothing goes out</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </Table>
            <p className="muted small">An end before the start runs past midnight (22:00–02:00).</p>
          </>
        )}
        {save.error && !anyFieldError ? <ProblemView error={save.error} /> : null}
        <div className="sub-actions">
          {draft !== null || stored !== null ? (
            <Button type="submit" variant="primary" disabled={!changed || save.isPending}>
              {save.isPending ? "Saving…" : "Save schedule"}
            </Button>
          ) : null}
          {draft !== null ? (
            <Button type="button" onClick={() => setDraft(null)}>
              Remove schedule
            </Button>
          ) : null}
          {save.isSuccess && !changed ? (
            <span className="muted" role="status">
              Saved.
            </span>
          ) : null}
        </div>
      </form>
    </Card>
  );
}
