import type { Queryable } from '../queryable.js';

/**
 * Gives back the credit of each of these anchor records that was paid for (`paid_by`), to the
 * user who paid, and records one `refund` movement per record naming the spend it gives back
 * (`refund_of`: the audit entry of the creation that spent it, found through the record's
 * trustpoint or evidence). One statement for any number of records and users.
 *
 * For what was paid for and never delivered: a withdrawn creation (call it before deleting the
 * trustpoints or evidence, whose rows lead to the spend), a record the chain refused. Pass the
 * transaction that withdraws or fails the records, so that each is refunded once. Records paid by
 * nobody (revocations, the Signature of a qualified creation) are left out.
 */
export async function refundPaidRecords(
  trx: Queryable,
  recordIds: readonly number[],
  reason: string,
): Promise<void> {
  if (recordIds.length === 0) return;
  await trx.raw(
    `with paid as (
       select r.id as record_id, r.paid_by as user_id,
              coalesce(
                (select a.id from trustpoints t
                   join certificates c on c.id = t.certificate_id
                   join audit_log a on a.target = 'certificate:' || c.cert_id
                                   and a.actor_id = r.paid_by
                  where t.anchor_record_id = r.id
                    and ((a.action = 'certificate.create' and t.timestamp = c.issued_on)
                         or (a.action in ('certificate.sign', 'certificate.reanchor')
                             and a.changes ->> 'timestamp' = t.timestamp::text))
                  order by a.id desc limit 1),
                (select a.id from evidences e
                   join assets s on s.id = e.asset
                   join audit_log a on a.target = 'asset:' || s.track_id
                                   and a.actor_id = r.paid_by
                  where e.anchor_record_id = r.id
                    and a.action in ('asset.create', 'evidence.add')
                    and a.changes ->> 'evidenceTimestamp' = e.timestamp::text
                  order by a.id desc limit 1)
              ) as spend_id
         from anchor_records r
        where r.id in (select value::bigint from jsonb_array_elements_text(?::jsonb))
          and r.paid_by is not null
     ),
     owed as (select user_id, count(*)::int as amount from paid group by user_id),
     refunded as (
       update credits set balance = credits.balance + owed.amount, updated_at = now()
         from owed where credits.user_id = owed.user_id
       returning credits.user_id, credits.balance - owed.amount as balance_before)
     insert into credit_movements (user_id, kind, amount, balance_after, reason, refund_of)
     select paid.user_id, 'refund', 1,
            refunded.balance_before
              + row_number() over (partition by paid.user_id order by paid.record_id),
            ?, paid.spend_id
       from paid join refunded on refunded.user_id = paid.user_id
      order by paid.user_id, paid.record_id`,
    [JSON.stringify(recordIds.map(Number)), reason],
  );
}
