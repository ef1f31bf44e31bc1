import { attributeDatatypes } from '../../shared/contracts/attributes';
import { withApplicableEnum } from '../../shared/domain/attributes';

describe('withApplicableEnum', () => {
  it.each([undefined, '', '   '])('keeps an enum attribute whose values are %p, as GrowthBook does', (values) => {
    expect(withApplicableEnum({ datatype: 'enum', enum: values })).toEqual({ datatype: 'enum', enum: values });
  });

  it.each(['enum', 'string[]', 'number[]', 'secureString[]'] as const)('keeps the values of a %s attribute', (datatype) => {
    expect(withApplicableEnum({ datatype, enum: 'red, green' })).toEqual({ datatype, enum: 'red, green' });
  });

  it.each(attributeDatatypes.filter((datatype) => datatype !== 'enum' && !datatype.endsWith('[]')))(
    'clears the values of a %s attribute, to which they do not apply',
    (datatype) => {
      expect(withApplicableEnum({ datatype, enum: 'red, green' })).toEqual({ datatype, enum: '' });
    },
  );
});
