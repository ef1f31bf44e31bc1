import { fromRequireReview, fromSavedGroupRule, missingApproverTeams, type RevisionReview } from '../../shared/domain/revision-reviews';

// Which required approver teams still have to sign off (GrowthBook's assessRequiredApproverTeams for one rule).

const security = { id: 'team_sec', name: 'Security', members: ['u_sam'] };
const payments = { id: 'team_pay', name: 'Payments', members: ['u_pat', 'u_sam'] };
const verdict = (userId: string, status: RevisionReview['status']): RevisionReview => ({ userId, status, timestamp: '2026-11-26T00:00:00.000Z' });

describe('missingApproverTeams', () => {
  it('is satisfied by an approval from a member of any one of the teams', () => {
    expect(missingApproverTeams([security, payments], [verdict('u_pat', 'approved')])).toEqual([]);
  });

  it('names every team while no standing approval comes from their members', () => {
    const expected = [
      { id: 'team_sec', name: 'Security' },
      { id: 'team_pay', name: 'Payments' },
    ];
    expect(missingApproverTeams([security, payments], [])).toEqual(expected);
    expect(missingApproverTeams([security, payments], [verdict('u_out', 'approved')])).toEqual(expected);
    // A member's request for changes, or an approval gone stale, is no approval.
    expect(missingApproverTeams([security, payments], [verdict('u_sam', 'changes-requested'), verdict('u_pat', 'approved-stale')])).toEqual(expected);
  });

  it('requires nobody when the rule names no team that still exists', () => {
    expect(missingApproverTeams([], [])).toEqual([]);
  });
});

describe('the rule fields the approval rules carry', () => {
  it('reads autopublishOnApproval and requiredApproverTeams from both families, off and none when unset', () => {
    expect(fromRequireReview({ requireReviewOn: true, autopublishOnApproval: true, requiredApproverTeams: ['team_sec'] })).toMatchObject({
      autopublishOnApproval: true,
      requiredApproverTeams: ['team_sec'],
    });
    expect(fromSavedGroupRule({ required: true })).toMatchObject({ autopublishOnApproval: false, requiredApproverTeams: [] });
  });
});
